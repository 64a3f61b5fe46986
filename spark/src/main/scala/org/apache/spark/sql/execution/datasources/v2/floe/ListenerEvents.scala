package org.apache.spark.sql.execution.datasources.v2.floe

import org.apache.spark.SparkContext

/** Spark's listener bus delivers query events asynchronously. */
object ListenerEvents {
  /** Returns once every event posted so far (in the active context) has been delivered. */
  def awaitDelivered(): Unit = SparkContext.getActive.foreach(_.listenerBus.waitUntilEmpty())
}
