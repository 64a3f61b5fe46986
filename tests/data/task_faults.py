"""Faults injected into Spark tasks, for the tests of floe's data source and of its Spark
plugin: mapInArrow functions placed between the source and the write. A test module that
uses one registers this module with cloudpickle by value (the Python workers do not have
tests/data on their path)."""


def fail_in(partition: int, attempts: int):
    """A mapInArrow function that passes batches through, except in Spark partition
    `partition` on its first `attempts` attempts, where it raises after the first batch:
    the write task has rows in hand when its attempt dies."""

    def passthrough(batches):
        from pyspark import TaskContext

        context = TaskContext.get()
        doomed = context.partitionId() == partition and context.attemptNumber() < attempts
        for k, batch in enumerate(batches):
            if doomed and k == 1:
                raise RuntimeError("injected task failure")
            yield batch

    return passthrough
