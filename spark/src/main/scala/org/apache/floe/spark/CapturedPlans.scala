package org.apache.floe.spark

import java.util.concurrent.ConcurrentLinkedQueue

import org.apache.spark.sql.execution.QueryExecution
import org.apache.spark.sql.util.QueryExecutionListener

/**
 * Records what each query of the session actually ran, so a user (or a test) can see whether
 * floe's split plan ran for a write: register it with
 * `spark.sql.queryExecutionListeners=org.apache.floe.spark.CapturedPlans` and read
 * [[CapturedPlans.drain]]. Each entry is the executed plan's tree (AQE's final plan) followed by
 * what [[FloeExplainInfo]] says about it. Holds the last 256 queries.
 */
class CapturedPlans extends QueryExecutionListener {
  override def onSuccess(funcName: String, qe: QueryExecution, durationNs: Long): Unit =
    CapturedPlans.record(qe, failed = false)

  override def onFailure(funcName: String, qe: QueryExecution, exception: Exception): Unit =
    CapturedPlans.record(qe, failed = true)
}

object CapturedPlans {
  private val Limit = 256
  private val plans = new ConcurrentLinkedQueue[String]()

  private def record(qe: QueryExecution, failed: Boolean): Unit = {
    // A query that failed before it was planned has no plan to record.
    val plan = try qe.executedPlan catch {
      case scala.util.control.NonFatal(_) | _: LinkageError => return
    }
    val floe = org.apache.spark.sql.execution.datasources.v2.floe.FloeIcebergWriteStrategy
      .describe(plan)
    val entry = (if (failed) "FAILED\n" else "") + plan.toString +
      floe.map("floe: " + _).mkString("\n", "\n", "")
    plans.add(entry)
    while (plans.size > Limit) plans.poll()
  }

  /**
   * The plans recorded since the last call, oldest first, once every query event posted so
   * far has been delivered (Spark delivers them asynchronously).
   */
  def drain(): Array[String] = {
    org.apache.spark.sql.execution.datasources.v2.floe.ListenerEvents.awaitDelivered()
    val out = Array.newBuilder[String]
    var next = plans.poll()
    while (next != null) { out += next; next = plans.poll() }
    out.result()
  }
}
