package io.syncmirror.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import io.syncmirror.hwgate.AckOutcome;
import io.syncmirror.hwgate.DelayedProducePurgatory;
import io.syncmirror.hwgate.HighWatermarkGate;
import io.syncmirror.hwgate.OwnerWakeup;
import io.syncmirror.hwgate.ProduceCompletionHandler;
import io.syncmirror.hwgate.RequestShard;
import io.syncmirror.hwgate.WaiterRings;
import io.syncmirror.offheap.PartitionRowDescriptor;
import io.syncmirror.offheap.PartitionTable;
import org.apache.kafka.server.purgatory.DelayedOperationPurgatory;
import org.apache.kafka.server.purgatory.TopicPartitionOperationKey;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH benchmark of one acks=all produce request's life in the delayed-produce purgatory, from the leader's
 * append to the delivery of its ack, in ours and in Kafka 4.4's DelayedOperationPurgatory, at 100k partitions.
 * Per JMH thread state.
 *
 * <p>Both sides run the same steps over the same {@link PartitionTable} and the same pseudo-random slots (the
 * partitions of one request are distinct): for each partition the leader publishes its new LEO and the
 * request starts waiting for that offset; then each partition's two followers report the same LEO, the second
 * report advances the HW, and the completion reaches the request's owner. Ours: {@link RequestShard#begin},
 * {@link DelayedProducePurgatory#onLocalLeo} and {@link RequestShard#watch} per partition, {@link RequestShard#arm},
 * the follower reports through {@link DelayedProducePurgatory#onLocalLeo}, which pops the slot's completed FIFO
 * prefix, and {@link RequestShard#poll} to deliver. Kafka: a {@link HighWatermarkDelayedProduce} watched under a
 * new {@link TopicPartitionOperationKey} per partition with {@code tryCompleteElseWatch}, as ReplicaManager
 * does after the append, then per follower report the same HW recompute and, when the HW moved,
 * {@code checkAndComplete} with a new key, as Partition does.
 *
 * <p>Kafka's purgatory is built as ReplicaManager builds its produce purgatory (a SystemTimer, the expiration
 * reaper thread running, purge interval 1000 requests). Deadlines are 30 s ahead and never fire; ours runs on a
 * fake clock that does not move, Kafka's timer reads the system clock as it always does.
 *
 * <p>At 100k partitions the rows (and our per-slot FIFOs) are cold: a request pays a cache miss for each line
 * it touches first, on both sides, so this measures the purgatory where production runs it, not in cache.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 3, jvmArgsAppend = { BenchmarkFlags.ADD_EXPORTS, BenchmarkFlags.DISABLE_BOUNDS_CHECKS })
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Thread)
public class PurgatoryBenchmark
{
    /** The request timeout. */
    public static final long DEADLINE_MS = 30_000L;
    /** Local replicas per partition: the leader and two followers, all in the ISR. */
    public static final int LOCAL_REPLICAS = 3;
    /** min.insync.replicas. */
    public static final int MIN_ISR = 2;
    /** Partitions per topic when slots are named for Kafka's keys. */
    public static final int PARTITIONS_PER_TOPIC = 100;
    /** Characters in a topic name. */
    public static final int TOPIC_NAME_LENGTH = 12;

    /**
     * Requests in flight per batched invocation: their followers' reports arrive as one fetch response per
     * follower, as a follower's fetch over a busy broker's partitions carries many.
     */
    public static final int BATCH = 64;

    static final int LEADER = 0;
    static final int FIRST_FOLLOWER = 1;
    static final int SECOND_FOLLOWER = 2;

    @Param({ "100000" })
    public int partitions;

    @Param({ "1", "3" })
    public int partitionsPerRequest;

    private Workload workload;
    private Ours ours;
    private Kafka kafka;

    /**
     * One state for both sides, so that both run over the one workload of their trial. (A state injected into
     * another state's setup is a separate instance in JMH; our purgatory once ran over one table while the
     * benchmark read another, and completed every wait at once.)
     */
    @Setup
    public void setUp()
    {
        workload = new Workload(partitions, partitionsPerRequest);
        ours = new Ours(workload);
        kafka = new Kafka();
    }

    /** Stops Kafka's reaper, then checks that every request of either side was delivered with success. */
    @TearDown
    public void tearDown() throws Exception
    {
        kafka.tearDown();
        ours.tearDown();
    }

    /** The partitions, their rows and the slots each request touches. Owned by one benchmark thread. */
    static final class Workload
    {
        final int partitions;
        final int partitionsPerRequest;
        final PartitionTable table;
        final HighWatermarkGate gate;
        final int[] slots;
        final String[] topics;
        /** The batched forms' reports: each request's partitions in request order, and their required offsets. */
        final int[] batchSlots;
        final long[] batchLeos;
        final long[] advanced;
        final int[] firstFollowerCells;
        final int[] secondFollowerCells;
        private int cursor;

        Workload(final int partitions, final int partitionsPerRequest)
        {
            this.partitions = partitions;
            this.partitionsPerRequest = partitionsPerRequest;
            // Rows carry our FIFOs in their extension, as a broker lays them out; Kafka's side reads the same rows.
            table = new PartitionTable(partitions, LOCAL_REPLICAS, 0, 0, WaiterRings.bytesFor(Ours.RING_CAPACITY));
            gate = new HighWatermarkGate(table);
            for (int slot = 0; slot < partitions; slot++)
            {
                table.initSlot(slot, 0L, (1 << LOCAL_REPLICAS) - 1, MIN_ISR);
            }
            slots = SlotSequences.distinctGroups(
                partitions, SlotSequences.LENGTH / partitionsPerRequest, partitionsPerRequest, SlotSequences.SEED);
            topics = topicNames((partitions + PARTITIONS_PER_TOPIC - 1) / PARTITIONS_PER_TOPIC);
            final int batchReports = BATCH * partitionsPerRequest;
            batchSlots = new int[batchReports];
            batchLeos = new long[batchReports];
            advanced = new long[batchReports];
            firstFollowerCells = new int[batchReports];
            secondFollowerCells = new int[batchReports];
            java.util.Arrays.fill(firstFollowerCells, table.localLeoCell(FIRST_FOLLOWER));
            java.util.Arrays.fill(secondFollowerCells, table.localLeoCell(SECOND_FOLLOWER));
        }

        /**
         * Unrelated topic names, as a cluster's are. Not "topic-N": a key's hash is 31 * hash(topic) + partition,
         * and the hashes of sequential names differ by small steps, so their keys would collide by construction
         * and push Kafka's watcher maps into tree bins that a real cluster rarely sees.
         */
        static String[] topicNames(final int count)
        {
            final SplittableRandom random = new SplittableRandom(SlotSequences.SEED);
            final String[] names = new String[count];
            final char[] name = new char[TOPIC_NAME_LENGTH];
            for (int i = 0; i < count; i++)
            {
                for (int c = 0; c < name.length; c++)
                {
                    name[c] = (char)('a' + random.nextInt(26));
                }
                names[i] = new String(name);
            }
            return names;
        }

        /** Index in {@link #slots} of the next request's first partition. */
        int nextRequest()
        {
            final int first = cursor;
            final int next = first + partitionsPerRequest;
            cursor = next == slots.length ? 0 : next;
            return first;
        }

        /** A new key for {@code slot}'s partition, as Kafka builds one per request and per completion check. */
        TopicPartitionOperationKey key(final int slot)
        {
            return new TopicPartitionOperationKey(topics[slot / PARTITIONS_PER_TOPIC], slot % PARTITIONS_PER_TOPIC);
        }
    }

    /** Our purgatory with one request shard. Owned by one benchmark thread, the shard's owner. */
    static final class Ours
    {
        /** Waits per slot FIFO; one is ever in use here, production sizes it for pipelined producers. */
        static final int RING_CAPACITY = 8;
        static final int MAX_REQUESTS = 1024;

        DelayedProducePurgatory purgatory;
        RequestShard shard;
        final CountingHandler handler = new CountingHandler();
        final long nowMs = 1_000_000L;
        long begun;

        Ours(final Workload workload)
        {
            purgatory = new DelayedProducePurgatory(workload.gate, RING_CAPACITY, 1);
            shard = purgatory.newShard(
                MAX_REQUESTS, MAX_REQUESTS * workload.partitionsPerRequest, handler, OwnerWakeup.NONE, nowMs);
        }

        /** Checks that every request began was delivered with a success on every partition. */
        void tearDown()
        {
            if (handler.delivered != begun || handler.failedWaits != 0 || shard.inFlight() != 0)
            {
                throw new IllegalStateException("began " + begun + ", delivered " + handler.delivered +
                    ", failed waits " + handler.failedWaits + ", in flight " + shard.inFlight());
            }
        }

        /** One request's life; returns the number of requests delivered (one). */
        int produce(final Workload workload)
        {
            final int count = beginAndWatch(workload, 0);
            for (int i = 0; i < count; i++)
            {
                final int slot = workload.batchSlots[i];
                purgatory.onLocalLeo(slot, FIRST_FOLLOWER, workload.batchLeos[i]);
                purgatory.onLocalLeo(slot, SECOND_FOLLOWER, workload.batchLeos[i]);
            }
            return shard.poll(nowMs);
        }

        /**
         * The next request: {@code begin}, then per partition the leader's LEO and the request's wait. Its slots and
         * required offsets go into the workload's batch arrays from {@code reports} on.
         *
         * @return the index in the batch arrays after this request's partitions
         */
        private int beginAndWatch(final Workload workload, final int reports)
        {
            final int first = workload.nextRequest();
            final int count = workload.partitionsPerRequest;
            final PartitionTable table = workload.table;
            final int request = shard.begin(begun++, count, nowMs + DEADLINE_MS);
            if (request == RequestShard.NO_REQUEST)
            {
                throw new IllegalStateException("request shard full: " + shard);
            }
            for (int i = 0; i < count; i++)
            {
                final int slot = workload.slots[first + i];
                final long leo = table.localLeo(slot, LEADER) + 1;
                purgatory.onLocalLeo(slot, LEADER, leo);
                shard.watch(request, slot, leo);
                workload.batchSlots[reports + i] = slot;
                workload.batchLeos[reports + i] = leo;
            }
            return reports + count;
        }

        /**
         * {@link #BATCH} requests' lives, their followers' reports batched: each request begins and waits as in
         * {@link #produce}, then each follower's reports for all of them arrive as one batch
         * ({@link DelayedProducePurgatory#onLeos}: a touch pass, one fence, the recomputes, the drains), and one
         * {@code poll} delivers them. Returns the number of requests delivered.
         */
        int produceBatch(final Workload workload)
        {
            int reports = 0;
            for (int r = 0; r < BATCH; r++)
            {
                reports = beginAndWatch(workload, reports);
            }
            purgatory.onLeos(workload.batchSlots, workload.firstFollowerCells, workload.batchLeos, reports,
                workload.advanced);
            purgatory.onLeos(workload.batchSlots, workload.secondFollowerCells, workload.batchLeos, reports,
                workload.advanced);
            return shard.poll(nowMs);
        }
    }

    /** Ours, purgatory only: watch, the shared HW publication, the FIFO drain, the delivery. */
    static int produceWatchComplete(final Workload workload, final Ours ours)
    {
        final int first = workload.nextRequest();
        final int count = workload.partitionsPerRequest;
        final int[] slots = workload.slots;
        final PartitionTable table = workload.table;
        final RequestShard shard = ours.shard;
        final int request = shard.begin(ours.begun++, count, ours.nowMs + DEADLINE_MS);
        if (request == RequestShard.NO_REQUEST)
        {
            throw new IllegalStateException("request shard full: " + shard);
        }
        for (int i = 0; i < count; i++)
        {
            final int slot = slots[first + i];
            shard.watch(request, slot, table.highWatermark(slot) + 1);
        }
        for (int i = 0; i < count; i++)
        {
            final int slot = slots[first + i];
            publishHighWatermark(table, slot, table.highWatermark(slot) + 1);
            ours.purgatory.onHighWatermarkAdvanced(slot);
        }
        return shard.poll(ours.nowMs);
    }

    /** Kafka, purgatory only: tryCompleteElseWatch, the shared HW publication, checkAndComplete per partition. */
    static long produceWatchComplete(final Workload workload, final Kafka kafka)
    {
        final int first = workload.nextRequest();
        final int count = workload.partitionsPerRequest;
        final int[] slots = workload.slots;
        final PartitionTable table = workload.table;
        final int[] requestSlots = new int[count];
        final long[] requiredOffsets = new long[count];
        final List<TopicPartitionOperationKey> keys = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            final int slot = slots[first + i];
            requestSlots[i] = slot;
            requiredOffsets[i] = table.highWatermark(slot) + 1;
            keys.add(workload.key(slot));
        }
        kafka.begun++;
        kafka.purgatory.tryCompleteElseWatch(new HighWatermarkDelayedProduce(
            DEADLINE_MS, table, requestSlots, requiredOffsets, kafka.outcomes), keys);
        for (int i = 0; i < count; i++)
        {
            final int slot = requestSlots[i];
            publishHighWatermark(table, slot, requiredOffsets[i]);
            kafka.purgatory.checkAndComplete(workload.key(slot));
        }
        return kafka.outcomes.completed();
    }

    /** Counts delivered requests and reads each wait's outcome, as a response builder must. Owner thread only. */
    static final class CountingHandler implements ProduceCompletionHandler
    {
        long delivered;
        long failedWaits;

        @Override
        public void onProduceComplete(final RequestShard shard, final int request, final long cookie)
        {
            for (int cell = shard.firstCell(request); cell != RequestShard.NO_CELL; cell = shard.nextCell(cell))
            {
                if (shard.cellOutcome(cell) != AckOutcome.SUCCESS)
                {
                    failedWaits++;
                }
            }
            delivered++;
        }
    }

    /**
     * Kafka 4.4's DelayedOperationPurgatory, built as ReplicaManager builds its produce purgatory. Driven by one
     * benchmark thread; the purgatory's own reaper thread runs beside it.
     */
    static final class Kafka
    {
        static final int BROKER_ID = 0;
        /** Kafka's producer.purgatory.purge.interval.requests default. */
        static final int PURGE_INTERVAL_REQUESTS = 1000;

        DelayedOperationPurgatory<HighWatermarkDelayedProduce> purgatory;
        final HighWatermarkDelayedProduce.Outcomes outcomes = new HighWatermarkDelayedProduce.Outcomes();
        long begun;

        Kafka()
        {
            purgatory = new DelayedOperationPurgatory<>("Produce", BROKER_ID, PURGE_INTERVAL_REQUESTS);
        }

        /** Stops the reaper thread, then checks that every request completed before its deadline. */
        void tearDown() throws Exception
        {
            purgatory.shutdown();
            if (outcomes.completed() != begun || outcomes.expired() != 0)
            {
                throw new IllegalStateException("began " + begun + ", completed " + outcomes.completed() +
                    ", expired " + outcomes.expired());
            }
        }

        /** One request's life; returns the number of requests completed so far. */
        long produce(final Workload workload)
        {
            final int count = appendAndWatch(workload, 0);
            final PartitionTable table = workload.table;
            final HighWatermarkGate gate = workload.gate;
            for (int i = 0; i < count; i++)
            {
                final int slot = workload.batchSlots[i];
                table.localLeo(slot, FIRST_FOLLOWER, workload.batchLeos[i]);
                boolean advanced = gate.maybeAdvance(slot) != HighWatermarkGate.NO_ADVANCE;
                table.localLeo(slot, SECOND_FOLLOWER, workload.batchLeos[i]);
                advanced |= gate.maybeAdvance(slot) != HighWatermarkGate.NO_ADVANCE;
                if (advanced)
                {
                    purgatory.checkAndComplete(workload.key(slot));
                }
            }
            return outcomes.completed();
        }

        /**
         * The next request: the leader appends to each of its partitions (its LEO and the HW recompute), then
         * {@code tryCompleteElseWatch} with a new key per partition, as ReplicaManager does after the append. Its
         * slots and required offsets go into the workload's batch arrays from {@code reports} on.
         *
         * @return the index in the batch arrays after this request's partitions
         */
        private int appendAndWatch(final Workload workload, final int reports)
        {
            final int first = workload.nextRequest();
            final int count = workload.partitionsPerRequest;
            final PartitionTable table = workload.table;
            final int[] requestSlots = new int[count];
            final long[] requiredOffsets = new long[count];
            final List<TopicPartitionOperationKey> keys = new ArrayList<>(count);
            for (int i = 0; i < count; i++)
            {
                final int slot = workload.slots[first + i];
                final long leo = table.localLeo(slot, LEADER) + 1;
                table.localLeo(slot, LEADER, leo);
                workload.gate.maybeAdvance(slot);
                requestSlots[i] = slot;
                requiredOffsets[i] = leo;
                keys.add(workload.key(slot));
                workload.batchSlots[reports + i] = slot;
                workload.batchLeos[reports + i] = leo;
            }
            begun++;
            purgatory.tryCompleteElseWatch(
                new HighWatermarkDelayedProduce(DEADLINE_MS, table, requestSlots, requiredOffsets, outcomes), keys);
            return reports + count;
        }

        /**
         * {@link #BATCH} requests as {@link Ours#produceBatch} runs them, with the same batched LEO reports and HW
         * recomputes ({@link HighWatermarkGate#onLeos}), then {@code checkAndComplete} per partition whose HW
         * moved, as Partition does after a follower's fetch. Returns the number of requests completed so far.
         */
        long produceBatch(final Workload workload)
        {
            final HighWatermarkGate gate = workload.gate;
            int reports = 0;
            for (int r = 0; r < BATCH; r++)
            {
                reports = appendAndWatch(workload, reports);
            }
            gate.onLeos(workload.batchSlots, workload.firstFollowerCells, workload.batchLeos, reports,
                workload.advanced);
            checkAndCompleteAdvanced(workload, reports);
            gate.onLeos(workload.batchSlots, workload.secondFollowerCells, workload.batchLeos, reports,
                workload.advanced);
            checkAndCompleteAdvanced(workload, reports);
            return outcomes.completed();
        }

        private void checkAndCompleteAdvanced(final Workload workload, final int reports)
        {
            for (int i = 0; i < reports; i++)
            {
                if (workload.advanced[i] != HighWatermarkGate.NO_ADVANCE)
                {
                    purgatory.checkAndComplete(workload.key(workload.batchSlots[i]));
                }
            }
        }
    }

    /**
     * Moves {@code slot}'s HW to {@code hw} the way the gate publishes it after a recompute (one CAS on the row's
     * HW word), without LEO reports: the purgatory-only comparison shares this step, so it measures the two
     * purgatories rather than the LEO and HW machinery both sides have in common.
     */
    static void publishHighWatermark(final PartitionTable table, final int slot, final long hw)
    {
        final int offset = table.rowOffset(slot) + PartitionRowDescriptor.HW_WORD_OFFSET;
        long word;
        do
        {
            word = table.buffer().getLongVolatile(offset);
        }
        while (!table.buffer().compareAndSetLong(offset, word, PartitionRowDescriptor.hwWord(hw, word)));
    }

    @Benchmark
    public int syncmirrorPurgatory()
    {
        return ours.produce(workload);
    }

    @Benchmark
    public long kafkaPurgatory()
    {
        return kafka.produce(workload);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int syncmirrorPurgatoryBatched()
    {
        return ours.produceBatch(workload);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long kafkaPurgatoryBatched()
    {
        return kafka.produceBatch(workload);
    }

    @Benchmark
    public int syncmirrorWatchComplete()
    {
        return produceWatchComplete(workload, ours);
    }

    @Benchmark
    public long kafkaWatchComplete()
    {
        return produceWatchComplete(workload, kafka);
    }
}
