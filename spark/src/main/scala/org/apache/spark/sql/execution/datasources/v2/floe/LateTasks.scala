package org.apache.spark.sql.execution.datasources.v2.floe

import java.nio.ByteBuffer
import java.security.MessageDigest
import java.util.UUID
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicInteger

import scala.jdk.CollectionConverters._

import org.apache.spark.SparkContext
import org.apache.spark.scheduler.{SparkListener, SparkListenerJobStart, SparkListenerTaskEnd, SparkListenerTaskStart}
import org.apache.spark.util.AccumulatorV2

/**
 * A write task's commit message, carried a second time with the task's accumulator updates
 * (registered to count failed tasks' values too). Spark drops the result of a task that
 * succeeds after its job has ended (the job failed, or another attempt of the task won), and
 * an executor turns a task whose kill arrived after its writer had finished into a killed
 * task, with no abort of that writer; either way Spark still posts the task's end, with its
 * accumulators, to the listeners: [[LateTasks]] reads the message there, so the committer
 * can delete files no commit will ever name. The driver keeps no value: `merge` ignores the
 * tasks' updates.
 */
class MessageAccumulator extends AccumulatorV2[Array[Byte], Array[Byte]] {
  @volatile private var message: Array[Byte] = _

  override def isZero: Boolean = message == null
  override def copy(): MessageAccumulator = {
    val other = new MessageAccumulator
    other.message = message
    other
  }
  override def reset(): Unit = message = null
  override def add(v: Array[Byte]): Unit = message = v
  override def merge(other: AccumulatorV2[Array[Byte], Array[Byte]]): Unit = ()
  override def value: Array[Byte] = message
}

/**
 * Follows the tasks of one write's job on the listener bus: which are still running, and
 * the message of every attempt that made one, whether or not its result reached the job.
 * Registered before the job starts (its jobs carry [[LateTasks.JobProperty]]), removed by
 * `close`.
 */
private[floe] final class LateTasks(sc: SparkContext, accumulatorId: Long)
    extends SparkListener with AutoCloseable {
  val writeId: String = UUID.randomUUID().toString
  private val stages = ConcurrentHashMap.newKeySet[Int]()
  private val running = new AtomicInteger
  // Keyed by the message's SHA-256: the driver keeps the bytes of the messages the job did
  // not take only (those it took are already decoded in the committer's hands).
  private val reported = new ConcurrentHashMap[ByteBuffer, Array[Byte]]()
  private val takenByJob = ConcurrentHashMap.newKeySet[ByteBuffer]()

  sc.addSparkListener(this)

  override def onJobStart(event: SparkListenerJobStart): Unit = {
    val properties = event.properties
    if (properties != null && properties.getProperty(LateTasks.JobProperty) == writeId) {
      event.stageIds.foreach(id => stages.add(id))
    }
  }

  override def onTaskStart(event: SparkListenerTaskStart): Unit =
    if (stages.contains(event.stageId)) running.incrementAndGet()

  override def onTaskEnd(event: SparkListenerTaskEnd): Unit = {
    if (stages.contains(event.stageId)) {
      // Any end: a task killed after its writer returned (the executor fails a task whose
      // kill arrived while it ran, even once its work is done) still carries its message.
      if (event.taskMetrics != null) {
        event.taskMetrics.withExternalAccums(_.find(_.id == accumulatorId)).foreach { a =>
          Option(a.value).foreach { case bytes: Array[Byte] =>
            val key = LateTasks.digest(bytes)
            if (!takenByJob.contains(key)) reported.put(key, bytes)
          }
        }
      }
      running.decrementAndGet()
    }
  }

  /** A message the job took (its result reached the job): not a late one. */
  def taken(message: Array[Byte]): Unit = {
    val key = LateTasks.digest(message)
    takenByJob.add(key)
    reported.remove(key)
  }

  /**
   * Waits, up to `timeoutMs`, until every task the job started has ended (and, with
   * `drainBus`, the listener bus has delivered every event posted so far, so a task that
   * ended before this call is counted even if the bus lags); returns the messages of the
   * attempts that ended with one but whose results the job did not take, and whether all
   * tasks ended in time.
   */
  def awaitEnd(timeoutMs: Long, drainBus: Boolean): (Seq[Array[Byte]], Boolean) = {
    val deadline = System.currentTimeMillis() + timeoutMs
    var ended = false
    var first = true
    while (!ended && (first || System.currentTimeMillis() < deadline)) {
      if (drainBus) {
        try sc.listenerBus.waitUntilEmpty(math.max(1L, deadline - System.currentTimeMillis()))
        catch { case _: java.util.concurrent.TimeoutException => }
      }
      ended = running.get() <= 0
      first = false
      if (!ended) Thread.sleep(50)
    }
    (reported.asScala.toSeq.collect { case (key, m) if !takenByJob.contains(key) => m }, ended)
  }

  override def close(): Unit = sc.removeSparkListener(this)
}

private[floe] object LateTasks {
  /** The local property that marks the jobs of one split write. */
  val JobProperty = "floe.iceberg.write.id"

  /** How long a committer waits for the tasks of a job that failed to end. */
  val AfterFailureMs = 60000L

  /** And after a job that succeeded (only attempts another one beat can still run). */
  val AfterSuccessMs = 10000L

  private def digest(message: Array[Byte]): ByteBuffer =
    ByteBuffer.wrap(MessageDigest.getInstance("SHA-256").digest(message))
}
