package org.apache.floe.spark

import org.apache.spark.sql.ExtendedExplainGenerator
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.datasources.v2.floe.FloeIcebergWriteStrategy

/**
 * What floe decided for each Iceberg write in a plan, for `EXPLAIN EXTENDED` and Spark's UI:
 * set `spark.sql.extendedExplainProviders=org.apache.floe.spark.FloeExplainInfo`. A write
 * floe declined keeps Spark's own operator; the reason names settings, never their values.
 */
class FloeExplainInfo extends ExtendedExplainGenerator {
  override def title: String = "floe"

  override def generateExtendedInfo(plan: SparkPlan): String =
    FloeIcebergWriteStrategy.describe(plan).mkString("\n")
}
