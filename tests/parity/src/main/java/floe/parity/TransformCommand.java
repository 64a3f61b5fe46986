package floe.parity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.function.Function;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/** {@code transform}: apply iceberg-java partition transforms to given values. */
final class TransformCommand {
  private TransformCommand() {}

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  static JsonNode run(JsonNode request) {
    JsonNode cases = request.get("cases");
    if (cases == null || !cases.isArray()) {
      throw new IllegalArgumentException("transform request needs \"cases\" (array)");
    }
    ObjectNode out = NODES.objectNode();
    ArrayNode results = out.putArray("results");
    for (JsonNode c : cases) {
      try {
        results.add(runCase(c));
      } catch (RuntimeException e) {
        ObjectNode err = NODES.objectNode();
        err.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
        results.add(err);
      }
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static JsonNode runCase(JsonNode c) {
    String typeString = c.path("type").asText(null);
    String transformString = c.path("transform").asText(null);
    if (typeString == null || transformString == null) {
      throw new IllegalArgumentException("case needs \"type\" and \"transform\": " + c);
    }
    Type type = Types.fromPrimitiveString(typeString);
    Transform<Object, Object> transform = (Transform<Object, Object>) Transforms.fromString(transformString);
    if (!transform.canTransform(type)) {
      throw new IllegalArgumentException(
          "Cannot apply transform " + transform + " to type " + type);
    }
    Function<Object, Object> fn = transform.bind(type);
    Type resultType = transform.getResultType(type);

    ArrayNode out = NODES.arrayNode();
    JsonNode values = c.path("values");
    if (!values.isArray()) {
      throw new IllegalArgumentException("case needs \"values\" (array): " + c);
    }
    for (JsonNode v : values) {
      Object input = JsonValues.internalFromJson(type, v);
      Object result = fn.apply(input);
      ObjectNode r = out.addObject();
      r.set("value", JsonValues.internalToJson(resultType, result));
      r.put("human", transform.toHumanString(resultType, result));
    }
    return out;
  }
}
