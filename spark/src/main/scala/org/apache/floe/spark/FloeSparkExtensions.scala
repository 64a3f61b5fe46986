package org.apache.floe.spark

import org.apache.spark.sql.{SparkSessionExtensions, SparkSessionExtensionsProvider}
import org.apache.spark.sql.execution.datasources.v2.floe.FloeIcebergWriteStrategy

/**
 * floe's Spark extension. Spark finds it through the `SparkSessionExtensionsProvider`
 * service file in the jar, so the jar on the classpath is all it takes; whether it changes
 * a plan is decided per write by [[FloeConf.WriteEnabled]], read when the write is planned.
 */
class FloeSparkExtensions extends SparkSessionExtensionsProvider {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    extensions.injectPlannerStrategy(session => FloeIcebergWriteStrategy(session))
  }
}
