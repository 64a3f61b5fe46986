package org.apache.spark.sql.execution.datasources.v2.floe

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, ObjectInputStream, ObjectOutputStream, ObjectStreamClass}

import org.apache.spark.sql.connector.write.WriterCommitMessage
import org.apache.spark.util.Utils

/**
 * The contract between the writer and the committer: each task emits one row holding one
 * non-null binary value, its Java-serialised commit message and row count. The committer does
 * not know which writer produced it.
 */
object CommitMessages {
  final case class TaskResult(message: WriterCommitMessage, numRows: Long)

  def toBytes(message: WriterCommitMessage, numRows: Long): Array[Byte] = {
    val bytes = new ByteArrayOutputStream()
    val out = new ObjectOutputStream(bytes)
    out.writeObject(TaskResult(message, numRows))
    out.close()
    bytes.toByteArray
  }

  /** Reads one with the class loader that loaded the write's classes (the session's jars). */
  def fromBytes(bytes: Array[Byte]): TaskResult = {
    val loader = Utils.getContextOrSparkClassLoader
    val in = new ObjectInputStream(new ByteArrayInputStream(bytes)) {
      override def resolveClass(desc: ObjectStreamClass): Class[_] =
        try Class.forName(desc.getName, false, loader)
        catch { case _: ClassNotFoundException => super.resolveClass(desc) }
    }
    try in.readObject().asInstanceOf[TaskResult] finally in.close()
  }
}
