package io.syncmirror.broker.storage;

import java.util.Map;

/** The {@link PartitionLog} contract against the heap log. */
class MemoryPartitionLogTest extends PartitionLogContractTest
{
    @Override
    protected PartitionLog newLog()
    {
        return new MemoryPartitionLog(TP, TOPIC_ID, Map.of(), time);
    }
}
