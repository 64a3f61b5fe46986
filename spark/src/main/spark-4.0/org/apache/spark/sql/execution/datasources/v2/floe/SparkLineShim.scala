package org.apache.spark.sql.execution.datasources.v2.floe

import org.apache.spark.sql.connector.write.{BatchWrite, WriterCommitMessage}
import org.apache.spark.sql.execution.SparkPlan

/** What differs on Spark 4.0: the commit takes the messages only. */
object SparkLineShim {
  def commit(batchWrite: BatchWrite, messages: Array[WriterCommitMessage], query: SparkPlan)
      : Unit = batchWrite.commit(messages)
}
