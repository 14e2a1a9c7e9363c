package io.syncmirror.broker.storage;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** The {@link PartitionLog} contract against Kafka's log engine, the reference answers. */
class UnifiedLogPartitionLogTest extends PartitionLogContractTest
{
    private Path dir;
    private DurableLogStore store;

    @Override
    protected PartitionLog newLog() throws Exception
    {
        dir = Files.createTempDirectory("syncmirror-unified-log");
        store = new DurableLogStore(List.of(dir), Map.of("retention.ms", "-1"), time, 0, 0);
        return store.getOrCreate(TP, TOPIC_ID, Map.of());
    }

    @Override
    protected void cleanUp() throws Exception
    {
        store.close();
        TestDirs.deleteRecursively(dir);
    }
}
