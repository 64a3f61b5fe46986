package org.apache.spark.sql.execution.datasources.v2.floe

import org.apache.spark.sql.connector.write.{BatchWrite, MergeSummaryImpl, WriterCommitMessage}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.datasources.v2.MergeRowsExec

/**
 * What differs on Spark 4.1: a MERGE hands its row counts to the commit (iceberg-java 1.11
 * records them in the snapshot summary), found in the writer's input as Spark 4.1's own
 * writer finds them.
 */
object SparkLineShim extends AdaptiveSparkPlanHelper {
  def commit(batchWrite: BatchWrite, messages: Array[WriterCommitMessage], query: SparkPlan)
      : Unit = {
    collectFirst(query) { case m: MergeRowsExec => m } match {
      case Some(merge) =>
        def count(name: String): Long = merge.metrics.get(name).map(_.value).getOrElse(-1L)
        batchWrite.commit(messages, MergeSummaryImpl(
          count("numTargetRowsCopied"),
          count("numTargetRowsDeleted"),
          count("numTargetRowsUpdated"),
          count("numTargetRowsInserted"),
          count("numTargetRowsMatchedUpdated"),
          count("numTargetRowsMatchedDeleted"),
          count("numTargetRowsNotMatchedBySourceUpdated"),
          count("numTargetRowsNotMatchedBySourceDeleted")))
      case None => batchWrite.commit(messages)
    }
  }
}
