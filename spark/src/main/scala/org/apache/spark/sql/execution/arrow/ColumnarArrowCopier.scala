package org.apache.spark.sql.execution.arrow

import org.apache.arrow.vector.{BaseFixedWidthVector, BaseVariableWidthVector, BitVector, BitVectorHelper, DecimalVector, ValueVector, VectorSchemaRoot}
import org.apache.spark.sql.execution.vectorized.WritableColumnVector
import org.apache.spark.sql.types._
import org.apache.spark.sql.vectorized.{ColumnarArray, ColumnarBatch, ColumnVector}
import org.apache.spark.unsafe.Platform

/**
 * Copies Spark's columnar batches (a columnar scan's, a cached relation's) into the vectors
 * of one Arrow batch, column by column, appending until `finish`. Fixed-width columns are
 * copied in bulk (`ColumnVector.getInts` and its siblings, then one memory copy into the
 * Arrow buffer); every other type goes value by value through Spark's own ArrowFieldWriter,
 * the conversion the row path uses, reading from the column instead of from rows. The Arrow
 * schema is `ArrowUtils.toArrowSchema` of the batches' schema, as the row path's.
 *
 * It lives in Spark's `arrow` package for the field writers, which Spark keeps to the package.
 */
private[sql] final class ColumnarArrowCopier(
    root: VectorSchemaRoot,
    schema: StructType,
    ordinals: Array[Int],
    sourceTypes: Array[DataType]) {
  require(root.getFieldVectors.size == schema.length && ordinals.length == schema.length &&
    sourceTypes.length == schema.length,
    s"an Arrow batch of ${root.getFieldVectors.size} columns for ${schema.length} fields")

  private val columns: Array[ColumnCopier] = schema.fields.zipWithIndex.map { case (f, i) =>
    ColumnCopier(root.getVector(i), f.dataType, sourceTypes(i))
  }
  private var rows = 0

  /** Rows appended since the last `reset`. */
  def count: Int = rows

  def reset(): Unit = {
    columns.foreach(_.reset())
    rows = 0
    root.setRowCount(0)
  }

  def append(batch: ColumnarBatch): Unit = {
    val n = batch.numRows()
    var i = 0
    while (i < columns.length) {
      columns(i).append(batch.column(ordinals(i)), n, rows)
      i += 1
    }
    rows += n
  }

  def finish(): Unit = {
    columns.foreach(_.finish(rows))
    root.setRowCount(rows)
  }
}

private sealed trait ColumnCopier {
  def reset(): Unit

  /** Appends the column's first `n` values at row `at` of the vector. */
  def append(column: ColumnVector, n: Int, at: Int): Unit

  def finish(rows: Int): Unit
}

private object ColumnCopier {
  def apply(vector: ValueVector, dataType: DataType, source: DataType): ColumnCopier =
    (dataType, source, vector) match {
      case (IntegerType, ByteType | ShortType, v: BaseFixedWidthVector) =>
        new WideningCopier(v, source)
      case _ if sameLayout(dataType, source) => ofType(vector, dataType)
      case _ => throw new IllegalArgumentException(
        s"floe: no columnar copy of $source into $dataType")
    }

  /** The same values: equal types but for nullability and the names of struct fields. */
  private def sameLayout(a: DataType, b: DataType): Boolean = (a, b) match {
    case (x: StructType, y: StructType) =>
      x.length == y.length && x.fields.zip(y.fields).forall { case (f, g) =>
        sameLayout(f.dataType, g.dataType)
      }
    case (x: ArrayType, y: ArrayType) => sameLayout(x.elementType, y.elementType)
    case (x: MapType, y: MapType) =>
      sameLayout(x.keyType, y.keyType) && sameLayout(x.valueType, y.valueType)
    case _ => a == b
  }

  private def ofType(vector: ValueVector, dataType: DataType): ColumnCopier =
    (dataType, vector) match {
      case (BooleanType, v: BitVector) => new BooleanCopier(v)
      case (ByteType, v: BaseFixedWidthVector) =>
        new FixedWidthCopier(v, 1, (c, n) => c.getBytes(0, n), Platform.BYTE_ARRAY_OFFSET)
      case (ShortType, v: BaseFixedWidthVector) =>
        new FixedWidthCopier(v, 2, (c, n) => c.getShorts(0, n), Platform.SHORT_ARRAY_OFFSET)
      case (IntegerType | DateType, v: BaseFixedWidthVector) =>
        new FixedWidthCopier(v, 4, (c, n) => c.getInts(0, n), Platform.INT_ARRAY_OFFSET)
      case (LongType | TimestampType | TimestampNTZType, v: BaseFixedWidthVector) =>
        new FixedWidthCopier(v, 8, (c, n) => c.getLongs(0, n), Platform.LONG_ARRAY_OFFSET)
      case (FloatType, v: BaseFixedWidthVector) =>
        new FixedWidthCopier(v, 4, (c, n) => c.getFloats(0, n), Platform.FLOAT_ARRAY_OFFSET)
      case (DoubleType, v: BaseFixedWidthVector) =>
        new FixedWidthCopier(v, 8, (c, n) => c.getDoubles(0, n), Platform.DOUBLE_ARRAY_OFFSET)
      case (d: DecimalType, v: DecimalVector) if d.precision <= Decimal.MAX_LONG_DIGITS =>
        new DecimalCopier(v, d)
      case (_: StringType, v: BaseVariableWidthVector) => new VarWidthCopier(v, binary = false)
      case (BinaryType, v: BaseVariableWidthVector) => new VarWidthCopier(v, binary = true)
      case _ => new ByValueCopier(ArrowWriter.createFieldWriter(vector))
    }

  /**
   * Whether `getInts` and its siblings may read every slot of `column`: a writable vector
   * (a scan's, a cache's) holds some value in a null slot; an Arrow-backed one refuses to
   * read a null slot, so a column of those with nulls is copied value by value.
   */
  def bulkReadable(column: ColumnVector): Boolean =
    column.isInstanceOf[WritableColumnVector] || !column.hasNull

  /** Sets the validity bits of rows `at` to `at + n` of a vector whose bits are clear. */
  def setValidity(vector: ValueVector, column: ColumnVector, n: Int, at: Int): Unit = {
    val validity = vector.getValidityBuffer
    var i = 0
    if (!column.hasNull) {
      while (i < n) { BitVectorHelper.setBit(validity, (at + i).toLong); i += 1 }
    } else {
      while (i < n) {
        if (!column.isNullAt(i)) BitVectorHelper.setBit(validity, (at + i).toLong)
        i += 1
      }
    }
  }
}

/** A fixed-width column: one bulk read from the column, one memory copy into Arrow's buffer. */
private final class FixedWidthCopier(
    vector: BaseFixedWidthVector,
    width: Int,
    read: (ColumnVector, Int) => AnyRef,
    arrayOffset: Long) extends ColumnCopier {
  private val slow = new ByValueCopier(ArrowWriter.createFieldWriter(vector))

  override def reset(): Unit = {
    vector.reset()
    slow.reset()
  }

  override def append(column: ColumnVector, n: Int, at: Int): Unit = {
    if (!ColumnCopier.bulkReadable(column)) {
      slow.skipTo(at)
      slow.append(column, n, at)
    } else if (n > 0) {
      while (vector.getValueCapacity < at + n) vector.reAlloc()
      Platform.copyMemory(read(column, n), arrayOffset, null,
        vector.getDataBufferAddress + at.toLong * width, n.toLong * width)
      ColumnCopier.setValidity(vector, column, n, at)
    }
  }

  override def finish(rows: Int): Unit = vector.setValueCount(rows)
}

/**
 * A fixed-width column converted value by value: each non-null value `put` at its row of
 * the Arrow buffer, the validity bits set after.
 */
private abstract class PerValueCopier(vector: BaseFixedWidthVector) extends ColumnCopier {
  override def reset(): Unit = vector.reset()

  /** Writes the column's value `i` (not null) at row `row` of `vector`. */
  protected def put(column: ColumnVector, i: Int, row: Int): Unit

  override def append(column: ColumnVector, n: Int, at: Int): Unit = {
    while (vector.getValueCapacity < at + n) vector.reAlloc()
    var i = 0
    while (i < n) {
      if (!column.isNullAt(i)) put(column, i, at + i)
      i += 1
    }
    ColumnCopier.setValidity(vector, column, n, at)
  }

  override def finish(rows: Int): Unit = vector.setValueCount(rows)
}

/**
 * A decimal of at most 18 digits: its unscaled value (a long in Spark) written as Arrow's
 * 16-byte little-endian two's complement, with no BigDecimal per value.
 */
private final class DecimalCopier(vector: DecimalVector, dataType: DecimalType)
    extends PerValueCopier(vector) {
  override protected def put(column: ColumnVector, i: Int, row: Int): Unit = {
    val unscaled = column.getDecimal(i, dataType.precision, dataType.scale).toUnscaledLong
    val at16 = row.toLong * DecimalVector.TYPE_WIDTH
    vector.getDataBuffer.setLong(at16, unscaled)
    vector.getDataBuffer.setLong(at16 + 8, if (unscaled < 0) -1L else 0L)
  }
}

/** Strings and binary: each value's bytes copied straight into Arrow's data buffer. */
private final class VarWidthCopier(vector: BaseVariableWidthVector, binary: Boolean)
    extends ColumnCopier {
  override def reset(): Unit = vector.reset()

  override def append(column: ColumnVector, n: Int, at: Int): Unit = {
    while (vector.getValueCapacity < at + n) vector.reallocValidityAndOffsetBuffers()
    val offsets = vector.getOffsetBuffer
    val width = BaseVariableWidthVector.OFFSET_WIDTH.toLong
    var end = offsets.getInt(at * width)
    var i = 0
    while (i < n) {
      if (!column.isNullAt(i)) {
        if (binary) {
          val bytes = column.getBinary(i)
          reserve(end.toLong + bytes.length)
          vector.getDataBuffer.setBytes(end.toLong, bytes)
          end += bytes.length
        } else {
          val value = column.getUTF8String(i)
          reserve(end.toLong + value.numBytes())
          value.writeToMemory(null, vector.getDataBuffer.memoryAddress() + end)
          end += value.numBytes()
        }
      }
      offsets.setInt((at + i + 1) * width, end)
      i += 1
    }
    ColumnCopier.setValidity(vector, column, n, at)
    vector.setLastSet(at + n - 1)
  }

  private def reserve(bytes: Long): Unit = {
    require(bytes <= Int.MaxValue, "a batch's strings exceed 2 GiB")
    while (vector.getDataBuffer.capacity() < bytes) vector.reallocDataBuffer()
  }

  override def finish(rows: Int): Unit = vector.setValueCount(rows)
}

/** A byte or short column written as ints (Iceberg has no narrower integer). */
private final class WideningCopier(vector: BaseFixedWidthVector, source: DataType)
    extends PerValueCopier(vector) {
  private val isByte = source == ByteType

  override protected def put(column: ColumnVector, i: Int, row: Int): Unit = {
    val value = if (isByte) column.getByte(i).toInt else column.getShort(i).toInt
    vector.getDataBuffer.setInt(row.toLong * 4, value)
  }
}

/** Booleans: one bit each in Arrow, one byte each in Spark's vectors. */
private final class BooleanCopier(vector: BitVector) extends PerValueCopier(vector) {
  override protected def put(column: ColumnVector, i: Int, row: Int): Unit =
    if (column.getBoolean(i)) BitVectorHelper.setBit(vector.getDataBuffer, row.toLong)
}

/** Any other type, value by value through Spark's ArrowFieldWriter for the vector. */
private final class ByValueCopier(writer: ArrowFieldWriter) extends ColumnCopier {
  override def reset(): Unit = writer.reset()

  /** Makes the writer's next row `at` (rows a bulk copy filled before it are kept). */
  def skipTo(at: Int): Unit = writer.count = at

  override def append(column: ColumnVector, n: Int, at: Int): Unit = {
    val values = new ColumnarArray(column, 0, n)
    var i = 0
    while (i < n) {
      writer.write(values, i)
      i += 1
    }
  }

  override def finish(rows: Int): Unit = writer.finish()
}
