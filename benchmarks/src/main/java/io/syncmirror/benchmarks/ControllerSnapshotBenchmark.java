package io.syncmirror.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.raft.KafkaRaftClient;
import org.apache.kafka.server.common.KRaftVersion;
import org.apache.kafka.server.common.OffsetAndEpoch;
import org.apache.kafka.snapshot.FileRawSnapshotWriter;
import org.apache.kafka.snapshot.RecordsSnapshotWriter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import io.syncmirror.broker.controller.Controller;
import io.syncmirror.broker.controller.MemoryMetadataLog;
import io.syncmirror.broker.controller.quorum.MetadataRecordSerde;
import io.syncmirror.broker.metadata.MetadataRecord;

/**
 * What a metadata snapshot costs the controller's event thread, which takes it between operations: collecting the
 * state's records ({@link Controller#snapshotRecords}) and writing them with Kafka's own snapshot writer
 * ({@link RecordsSnapshotWriter} on a {@link FileRawSnapshotWriter}, in batches as the quorum's log writes them,
 * frozen, which flushes the file), beside the cost of the other direction, rebuilding a controller from those
 * records (what a restarted voter or a renounced leader pays). Not a hot-path benchmark and not in the default
 * suite: {@code benchmarks/run-micro.sh --include ControllerSnapshot}.
 *
 * <p>The state: three unfenced brokers and topics of 100 partitions, replication factor 3, created through the
 * controller's own CreateTopics, so 10,000 partitions are 100 topics and 100,000 are 1,000.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = { BenchmarkFlags.ADD_EXPORTS, "-Xmx2g" })
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@State(Scope.Thread)
public class ControllerSnapshotBenchmark
{
    private static final int PARTITIONS_PER_TOPIC = 100;
    private static final int RECORDS_PER_BATCH = 10_000;

    @Param({ "10000", "100000" })
    public int partitions;

    private Controller controller;
    /** The snapshot's records as one log, for the rebuild. */
    private MemoryMetadataLog snapshotLog;
    private Path dir;
    private long snapshots;

    @Setup(Level.Trial)
    public void setUp() throws IOException
    {
        final AtomicLong nowMs = new AtomicLong(1_000);
        controller = new Controller(new MemoryMetadataLog(), nowMs::get, Map.of("cluster.id", "bench"),
            Controller.seededTopicIds(1));
        for (int broker = 1; broker <= 3; broker++)
        {
            final BrokerRegistrationRequestData.ListenerCollection listeners =
                new BrokerRegistrationRequestData.ListenerCollection();
            listeners.add(new BrokerRegistrationRequestData.Listener().setName("PLAINTEXT").setHost("127.0.0.1")
                .setPort(9000 + broker));
            final long epoch = controller.registerBroker(new BrokerRegistrationRequestData().setBrokerId(broker)
                .setClusterId("bench").setIncarnationId(Uuid.randomUuid()).setListeners(listeners)).brokerEpoch();
            controller.heartbeat(new BrokerHeartbeatRequestData().setBrokerId(broker).setBrokerEpoch(epoch)
                .setCurrentMetadataOffset(controller.log().endOffset()));
        }
        for (int topic = 0; topic < partitions / PARTITIONS_PER_TOPIC; topic++)
        {
            final CreateTopicsRequestData.CreatableTopicCollection topics =
                new CreateTopicsRequestData.CreatableTopicCollection();
            topics.add(new CreateTopicsRequestData.CreatableTopic().setName("topic-" + topic)
                .setNumPartitions(PARTITIONS_PER_TOPIC).setReplicationFactor((short) 3));
            controller.createTopics(new CreateTopicsRequestData().setTopics(topics));
        }
        snapshotLog = new MemoryMetadataLog();
        snapshotLog.append(controller.snapshotRecords(), 1_000);
        dir = Files.createTempDirectory("controller-snapshot-bench");
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException
    {
        Utils.delete(dir.toFile());
    }

    /** Collecting the records of the controller's state. */
    @Benchmark
    public List<MetadataRecord> collectRecords()
    {
        return controller.snapshotRecords();
    }

    /** Collecting them and writing them as a frozen snapshot file with Kafka's writer: the event thread's stall. */
    @Benchmark
    public long collectAndWriteSnapshot()
    {
        final List<MetadataRecord> state = controller.snapshotRecords();
        final OffsetAndEpoch id = new OffsetAndEpoch(++snapshots, 1);
        try (RecordsSnapshotWriter<MetadataRecord> writer = new RecordsSnapshotWriter.Builder()
            .setTime(Time.SYSTEM).setKraftVersion(KRaftVersion.KRAFT_VERSION_0)
            .setMaxBatchSizeBytes(KafkaRaftClient.MAX_BATCH_SIZE_BYTES)
            .setRawSnapshotWriter(FileRawSnapshotWriter.create(dir, id)).build(MetadataRecordSerde.INSTANCE))
        {
            for (int from = 0; from < state.size(); from += RECORDS_PER_BATCH)
            {
                writer.append(state.subList(from, Math.min(state.size(), from + RECORDS_PER_BATCH)));
            }
            writer.freeze();
        }
        try
        {
            final Path file = dir.resolve(String.format("%020d-%010d.checkpoint", id.offset(), id.epoch()));
            final long bytes = Files.size(file);
            Files.delete(file);
            return bytes;
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    /** The other direction: a controller rebuilt by replaying the snapshot's records into an empty one. */
    @Benchmark
    public Controller rebuildFromRecords()
    {
        return new Controller(snapshotLog, () -> 1_000, Map.of("cluster.id", "bench"));
    }
}
