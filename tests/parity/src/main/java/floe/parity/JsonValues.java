package floe.parity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/** Conversions between Iceberg values and the harness's stable JSON forms. */
final class JsonValues {
  private JsonValues() {}

  static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final HexFormat HEX = HexFormat.of();

  private static final DateTimeFormatter TIME_US =
      new DateTimeFormatterBuilder()
          .appendPattern("HH:mm:ss")
          .appendFraction(ChronoField.NANO_OF_SECOND, 6, 6, true)
          .toFormatter();
  private static final DateTimeFormatter TIME_NS =
      new DateTimeFormatterBuilder()
          .appendPattern("HH:mm:ss")
          .appendFraction(ChronoField.NANO_OF_SECOND, 9, 9, true)
          .toFormatter();
  private static final DateTimeFormatter TS_US =
      new DateTimeFormatterBuilder()
          .append(DateTimeFormatter.ISO_LOCAL_DATE)
          .appendLiteral('T')
          .append(TIME_US)
          .toFormatter();
  private static final DateTimeFormatter TS_NS =
      new DateTimeFormatterBuilder()
          .append(DateTimeFormatter.ISO_LOCAL_DATE)
          .appendLiteral('T')
          .append(TIME_NS)
          .toFormatter();

  static String hex(ByteBuffer buffer) {
    if (buffer == null) {
      return null;
    }
    ByteBuffer dup = buffer.duplicate();
    byte[] bytes = new byte[dup.remaining()];
    dup.get(bytes);
    return HEX.formatHex(bytes);
  }

  static String hex(byte[] bytes) {
    return bytes == null ? null : HEX.formatHex(bytes);
  }

  static byte[] unhex(String s) {
    return HEX.parseHex(s);
  }

  static JsonNode floating(double d) {
    if (Double.isNaN(d)) {
      return NODES.textNode("NaN");
    } else if (d == Double.POSITIVE_INFINITY) {
      return NODES.textNode("Infinity");
    } else if (d == Double.NEGATIVE_INFINITY) {
      return NODES.textNode("-Infinity");
    }
    return NODES.numberNode(d);
  }

  static JsonNode floating(float f) {
    if (Float.isNaN(f)) {
      return NODES.textNode("NaN");
    } else if (f == Float.POSITIVE_INFINITY) {
      return NODES.textNode("Infinity");
    } else if (f == Float.NEGATIVE_INFINITY) {
      return NODES.textNode("-Infinity");
    }
    return NODES.numberNode(f);
  }

  // ---------------------------------------------------------------------------------------------
  // Generic (data-module) row values -> JSON, used for "rows" in dump.
  // Representations: date LocalDate, time LocalTime, timestamp LocalDateTime, timestamptz
  // OffsetDateTime, fixed byte[], binary ByteBuffer, uuid UUID, decimal BigDecimal.

  static JsonNode genericToJson(Type type, Object value) {
    if (value == null) {
      return NODES.nullNode();
    }
    switch (type.typeId()) {
      case BOOLEAN:
        return NODES.booleanNode((Boolean) value);
      case INTEGER:
        return NODES.numberNode((Integer) value);
      case LONG:
        return NODES.numberNode((Long) value);
      case FLOAT:
        return floating((Float) value);
      case DOUBLE:
        return floating((Double) value);
      case DECIMAL:
        return NODES.textNode(((BigDecimal) value).toPlainString());
      case STRING:
        return NODES.textNode(value.toString());
      case UUID:
        return NODES.textNode(value.toString());
      case FIXED:
      case BINARY:
        if (value instanceof byte[]) {
          return NODES.textNode(hex((byte[]) value));
        }
        return NODES.textNode(hex((ByteBuffer) value));
      case DATE:
        return NODES.textNode(((LocalDate) value).format(DateTimeFormatter.ISO_LOCAL_DATE));
      case TIME:
        return NODES.textNode(((LocalTime) value).format(TIME_US));
      case TIMESTAMP:
        return NODES.textNode(formatTimestamp(value, TS_US));
      case TIMESTAMP_NANO:
        return NODES.textNode(formatTimestamp(value, TS_NS));
      case STRUCT:
        {
          ObjectNode obj = NODES.objectNode();
          List<Types.NestedField> fields = type.asStructType().fields();
          StructLike struct = (StructLike) value;
          for (int i = 0; i < fields.size(); i++) {
            Types.NestedField f = fields.get(i);
            obj.set(f.name(), genericToJson(f.type(), struct.get(i, Object.class)));
          }
          return obj;
        }
      case LIST:
        {
          ArrayNode arr = NODES.arrayNode();
          Type elem = type.asListType().elementType();
          for (Object o : (List<?>) value) {
            arr.add(genericToJson(elem, o));
          }
          return arr;
        }
      case MAP:
        {
          // maps become a list of {"key": k, "value": v} in the map's iteration order
          ArrayNode arr = NODES.arrayNode();
          Types.MapType map = type.asMapType();
          for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
            ObjectNode kv = NODES.objectNode();
            kv.set("key", genericToJson(map.keyType(), e.getKey()));
            kv.set("value", genericToJson(map.valueType(), e.getValue()));
            arr.add(kv);
          }
          return arr;
        }
      default:
        return NODES.textNode(String.valueOf(value));
    }
  }

  private static String formatTimestamp(Object value, DateTimeFormatter fmt) {
    if (value instanceof OffsetDateTime) {
      OffsetDateTime odt = ((OffsetDateTime) value).withOffsetSameInstant(ZoneOffset.UTC);
      return odt.toLocalDateTime().format(fmt) + "+00:00";
    }
    return ((LocalDateTime) value).format(fmt);
  }

  // ---------------------------------------------------------------------------------------------
  // Internal (transform / partition) values <-> JSON, used by the transform command.
  // Representations: date Integer (days), time/timestamp Long (us), timestamp_ns Long (ns),
  // fixed/binary ByteBuffer, uuid UUID, decimal BigDecimal, string CharSequence.

  static Object internalFromJson(Type type, JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    switch (type.typeId()) {
      case BOOLEAN:
        if (!node.isBoolean()) {
          throw new IllegalArgumentException("Expected a boolean for " + type + ": " + node);
        }
        return node.booleanValue();
      case INTEGER:
      case DATE:
        return Math.toIntExact(integral(type, node));
      case LONG:
      case TIME:
      case TIMESTAMP:
      case TIMESTAMP_NANO:
        return integral(type, node);
      case FLOAT:
        return (float) floatingFromJson(type, node);
      case DOUBLE:
        return floatingFromJson(type, node);
      case DECIMAL:
        return new BigDecimal(node.isTextual() ? node.textValue() : node.asText());
      case STRING:
        return text(type, node);
      case UUID:
        return UUID.fromString(text(type, node));
      case FIXED:
      case BINARY:
        return ByteBuffer.wrap(unhex(text(type, node)));
      default:
        throw new IllegalArgumentException("Unsupported type for transform values: " + type);
    }
  }

  static JsonNode internalToJson(Type type, Object value) {
    if (value == null) {
      return NODES.nullNode();
    }
    switch (type.typeId()) {
      case BOOLEAN:
        return NODES.booleanNode((Boolean) value);
      case INTEGER:
      case DATE:
        return NODES.numberNode(((Number) value).intValue());
      case LONG:
      case TIME:
      case TIMESTAMP:
      case TIMESTAMP_NANO:
        return NODES.numberNode(((Number) value).longValue());
      case FLOAT:
        return floating((Float) value);
      case DOUBLE:
        return floating((Double) value);
      case DECIMAL:
        return NODES.textNode(((BigDecimal) value).toPlainString());
      case STRING:
      case UUID:
        return NODES.textNode(value.toString());
      case FIXED:
      case BINARY:
        if (value instanceof byte[]) {
          return NODES.textNode(hex((byte[]) value));
        }
        return NODES.textNode(hex((ByteBuffer) value));
      default:
        return NODES.textNode(String.valueOf(value));
    }
  }

  private static long integral(Type type, JsonNode node) {
    if (node.isIntegralNumber() && node.canConvertToLong()) {
      return node.longValue();
    } else if (node.isTextual()) {
      return Long.parseLong(node.textValue().trim());
    }
    throw new IllegalArgumentException("Expected an integer for " + type + ": " + node);
  }

  private static double floatingFromJson(Type type, JsonNode node) {
    if (node.isNumber()) {
      return node.doubleValue();
    } else if (node.isTextual()) {
      String s = node.textValue().trim();
      switch (s) {
        case "NaN":
          return Double.NaN;
        case "Infinity":
        case "+Infinity":
          return Double.POSITIVE_INFINITY;
        case "-Infinity":
          return Double.NEGATIVE_INFINITY;
        default:
          return Double.parseDouble(s);
      }
    }
    throw new IllegalArgumentException("Expected a number for " + type + ": " + node);
  }

  private static String text(Type type, JsonNode node) {
    if (!node.isTextual()) {
      throw new IllegalArgumentException("Expected a string for " + type + ": " + node);
    }
    return node.textValue();
  }
}
