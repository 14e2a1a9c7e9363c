package io.syncmirror.broker.mirror;

import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.replica.Partition;
import io.syncmirror.fetch.FetchTransport;
import io.syncmirror.fetch.FetcherConfig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The mirror fetchers' handling of source fetch errors, against a real destination {@link Partition} (a
 * {@link ReplicaManager} over a {@link MemoryLogStore}) and scripted source nodes whose every Fetch the test
 * answers by hand.
 */
@Timeout(30)
class MirrorFetchersTest
{
    private static final int BROKER_ID = LeaderMirrorFixture.BROKER_ID;
    private static final String MIRROR = LeaderMirrorFixture.MIRROR;
    private static final Uuid TOPIC_ID = LeaderMirrorFixture.TOPIC_ID;
    private static final TopicPartition TP = LeaderMirrorFixture.TP;
    private static final Node SOURCE_5 = new Node(5, "127.0.0.1", 9);
    private static final Node SOURCE_6 = new Node(6, "127.0.0.1", 10);
    private static final long BACKOFF_MS = 20L;
    private static final long QUIET_MS = 10 * BACKOFF_MS;

    /** A source node: records each Fetch it is sent and lets the test answer it. Thread-safe. */
    private static final class ScriptedSource implements FetchTransport
    {
        final BlockingQueue<Exchange> exchanges = new LinkedBlockingQueue<>();

        @Override
        public CompletableFuture<FetchResponse> send(final FetchRequest.Builder request)
        {
            final FetchRequest built = request.build(request.latestAllowedVersion());
            final Exchange exchange = new Exchange(built.data(), new CompletableFuture<>());
            exchanges.add(exchange);
            return exchange.answer();
        }

        @Override
        public boolean isReady()
        {
            return true;
        }

        /** The next Fetch sent, waiting up to 10 s. */
        Exchange next() throws InterruptedException
        {
            final Exchange exchange = exchanges.poll(10, TimeUnit.SECONDS);
            assertNotNull(exchange, "no fetch reached the source");
            return exchange;
        }

        /** A Fetch sent within {@code timeoutMs}, or null. */
        Exchange nextWithin(final long timeoutMs) throws InterruptedException
        {
            return exchanges.poll(timeoutMs, TimeUnit.MILLISECONDS);
        }
    }

    /** One Fetch and its answer. */
    private record Exchange(FetchRequestData request, CompletableFuture<FetchResponse> answer)
    {
        FetchRequestData.FetchPartition partition()
        {
            for (final FetchRequestData.FetchTopic topic : request.topics())
            {
                for (final FetchRequestData.FetchPartition partition : topic.partitions())
                {
                    if (topic.topicId().equals(TOPIC_ID) && partition.partition() == TP.partition())
                    {
                        return partition;
                    }
                }
            }
            throw new AssertionError("the fetch does not carry " + TP + ": " + request);
        }

        /** Answers with one partition-level error and no session (the next fetch is a full one again). */
        void answerError(final Errors error, final int currentLeaderId, final int currentLeaderEpoch)
        {
            final FetchResponseData.PartitionData data = new FetchResponseData.PartitionData()
                .setPartitionIndex(TP.partition())
                .setErrorCode(error.code())
                .setHighWatermark(FetchResponse.INVALID_HIGH_WATERMARK)
                .setLastStableOffset(FetchResponse.INVALID_LAST_STABLE_OFFSET)
                .setLogStartOffset(FetchResponse.INVALID_LOG_START_OFFSET)
                .setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch().setLeaderId(currentLeaderId)
                    .setLeaderEpoch(currentLeaderEpoch))
                .setRecords(MemoryRecords.EMPTY);
            final FetchResponseData response = new FetchResponseData().setErrorCode(Errors.NONE.code()).setSessionId(0);
            response.responses().add(new FetchResponseData.FetchableTopicResponse().setTopicId(TOPIC_ID)
                .setPartitions(new java.util.ArrayList<>(List.of(data))));
            answer.complete(FetchResponse.of(response));
        }
    }

    /** Answers within fetch session {@code sessionId}: the partition with no records, or nothing at all. */
    private static void answerInSession(final Exchange exchange, final int sessionId, final boolean withPartition)
    {
        final FetchResponseData response = new FetchResponseData().setErrorCode(Errors.NONE.code())
            .setSessionId(sessionId);
        if (withPartition)
        {
            response.responses().add(new FetchResponseData.FetchableTopicResponse().setTopicId(TOPIC_ID)
                .setPartitions(new java.util.ArrayList<>(List.of(new FetchResponseData.PartitionData()
                    .setPartitionIndex(TP.partition()).setHighWatermark(0L).setLastStableOffset(0L)
                    .setLogStartOffset(0L).setRecords(MemoryRecords.EMPTY)))));
        }
        exchange.answer().complete(FetchResponse.of(response));
    }

    private final ScriptedSource source5 = new ScriptedSource();
    private final ScriptedSource source6 = new ScriptedSource();
    private final List<Node> transportsOpened = new CopyOnWriteArrayList<>();
    private final List<String> lookupThreads = new CopyOnWriteArrayList<>();
    private final CompletableFuture<long[]> sourceOffsets = new CompletableFuture<>();
    private final ExecutorService lookups = Executors.newSingleThreadExecutor(r ->
    {
        final Thread thread = new Thread(r, "test-mirror-offset-lookups");
        thread.setDaemon(true);
        return thread;
    });
    private MirrorFetchers fetchers;
    private LeaderMirrorFixture fixture;
    private Partition partition;
    private MirrorPartition mirror;

    @BeforeEach
    void setUp()
    {
        final FetcherConfig config = new FetcherConfig(-1, -1L, 0, 1, 1 << 20, 1 << 20, BACKOFF_MS, 10_000L,
            ApiKeys.FETCH.latestVersion());
        fetchers = new MirrorFetchers(BROKER_ID, config, Long.MAX_VALUE, lookups, () -> System.nanoTime() / 1_000_000L,
            node ->
            {
                transportsOpened.add(node);
                return node.id() == SOURCE_5.id() ? source5 : source6;
            },
            (cluster, tp) ->
            {
                lookupThreads.add(Thread.currentThread().getName());
                return sourceOffsets.join();
            });
        fixture = new LeaderMirrorFixture(System::currentTimeMillis);
        partition = fixture.partition;
        mirror = fixture.mirror;
    }

    @AfterEach
    void tearDown()
    {
        sourceOffsets.complete(new long[] {0L, 0L});
        fetchers.close();
        lookups.shutdownNow();
        fixture.close();
    }

    private static void await(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() < deadlineNs, "timed out waiting until " + what);
            Thread.sleep(5);
        }
    }

    @Test
    @DisplayName("AM-05 a FENCED_LEADER_EPOCH whose CurrentLeader is the source node fetched teaches the fetcher "
        + "that epoch: the next fetch carries it")
    void fencedLeaderEpochFromTheFetchedNodeTeachesTheSourceEpoch() throws Exception
    {
        fetchers.add(mirror, null, SOURCE_5, Map.of());
        final Exchange first = source5.next();
        assertEquals(0, first.partition().currentLeaderEpoch(), "the epoch the partition started with");
        assertEquals(0L, first.partition().fetchOffset());

        first.answerError(Errors.FENCED_LEADER_EPOCH, SOURCE_5.id(), 7);
        final Exchange second = source5.next();
        assertEquals(7, second.partition().currentLeaderEpoch());
        assertEquals(0L, second.partition().fetchOffset());
        assertEquals(7, mirror.sourceLeaderEpoch);
        assertTrue(mirror.fetching);
        assertFalse(mirror.leaderLookupNeeded);
        assertEquals(List.of(SOURCE_5), transportsOpened);
    }

    @Test
    @DisplayName("AM-05 NOT_LEADER_OR_FOLLOWER takes the partition off its fetcher and asks for a leader lookup; "
        + "added again, it is fetched from the new source leader")
    void notLeaderRemovesThePartitionAndAsksForALeaderLookup() throws Exception
    {
        fetchers.add(mirror, null, SOURCE_5, Map.of());
        source5.next().answerError(Errors.NOT_LEADER_OR_FOLLOWER, SOURCE_6.id(), 3);

        await(() -> mirror.leaderLookupNeeded, "the partition asks for a leader lookup");
        assertFalse(mirror.fetching);
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER, mirror.lastError);
        assertNull(mirror.fatalError);
        assertNull(source5.nextWithin(QUIET_MS), "fetched again from the old leader");
        fetchers.shutdownIdleFetchers();
        assertEquals(0, fetchers.fetcherCount(), "the old leader's fetcher still has the partition");

        // What the coordinator does once it has looked the leader up.
        mirror.leaderLookupNeeded = false;
        fetchers.add(mirror, null, SOURCE_6, Map.of());
        final Exchange moved = source6.next();
        assertEquals(0L, moved.partition().fetchOffset());
        assertTrue(mirror.fetching);
        assertEquals(SOURCE_6.id(), mirror.sourceLeaderId);
    }

    @Test
    @DisplayName("SU-02 hazard 1: a new source leader epoch whose log ends where the mirror's does validates the "
        + "mirror's log for reports when the source's incremental answer leaves the partition out: no records need "
        + "to come first (a source whose producers wait on this mirror appends none)")
    void aPositionTheSourceAnswersByOmissionValidatesTheNewSourceEpoch() throws Exception
    {
        mirror.validatedSourceEpoch = -1;
        mirror.sourceLeaderEpoch = 3;
        fetchers.add(mirror, null, SOURCE_5, Map.of());
        answerInSession(source5.next(), 77, true); // the full fetch opens session 77 and names the partition
        await(() -> mirror.validatedSourceEpoch == 3, "the answer naming the partition validates epoch 3");
        answerInSession(source5.next(), 77, false); // an idle incremental fetch

        // The source leader's epoch moves to 4 (a clean leader change) and its log ends where ours does.
        mirror.sourceLeaderEpoch = 4;
        fetchers.add(mirror, null, SOURCE_5, Map.of());
        Exchange exchange = source5.next();
        while (exchange.request().topics().isEmpty())
        {
            answerInSession(exchange, 77, false); // an idle fetch sent before the move
            exchange = source5.next();
        }
        assertEquals(4, exchange.partition().currentLeaderEpoch());
        assertEquals(3, mirror.validatedSourceEpoch, "nothing answered at epoch 4 yet");
        answerInSession(exchange, 77, false); // nothing new, nothing diverging: left out
        await(() -> mirror.validatedSourceEpoch == 4, "the position answered at epoch 4 validates it");
    }

    @Test
    @DisplayName("SU-02 a SYNC partition whose source leader moved reports through the new leader's reporter only: "
        + "the old fetcher's reporter, closed as idle, leaves the new one's signal on the partition")
    void movedSyncPartitionKeepsTheNewReportersSignal() throws Exception
    {
        mirror.syncReporting = true;
        fetchers.add(mirror, null, SOURCE_5, Map.of());
        assertTrue(partition.hasSyncReportSignal(), "the first reporter is signalled");
        source5.next().answerError(Errors.NOT_LEADER_OR_FOLLOWER, SOURCE_6.id(), 1);
        await(() -> mirror.leaderLookupNeeded, "the partition asks for a leader lookup");

        mirror.leaderLookupNeeded = false;
        fetchers.add(mirror, null, SOURCE_6, Map.of());
        source6.next();
        fetchers.shutdownIdleFetchers();
        assertEquals(1, fetchers.fetcherCount(), "the old leader's fetcher is idle and stopped, the new one runs");
        assertTrue(partition.hasSyncReportSignal(),
            "the old reporter, closed, took the new reporter's signal: the new source leader would hear no reports");
    }

    @Test
    @DisplayName("AM-05 a FENCED_LEADER_EPOCH naming another node as the source leader moves the partition "
        + "instead of learning the epoch")
    void fencedLeaderEpochNamingAnotherNodeMovesThePartition() throws Exception
    {
        fetchers.add(mirror, null, SOURCE_5, Map.of());
        source5.next().answerError(Errors.FENCED_LEADER_EPOCH, SOURCE_6.id(), 7);

        await(() -> mirror.leaderLookupNeeded, "the partition asks for a leader lookup");
        assertFalse(mirror.fetching);
        assertEquals(0, mirror.sourceLeaderEpoch, "learned the epoch of another leader");
        assertNull(source5.nextWithin(QUIET_MS), "fetched again from the old leader");
    }

    @Test
    @DisplayName("AM-16 OFFSET_MOVED_TO_TIERED_STORAGE takes the partition off its fetcher and records a fatal "
        + "error for the coordinator")
    void offsetMovedToTieredStorageIsFatal() throws Exception
    {
        fetchers.add(mirror, null, SOURCE_5, Map.of());
        source5.next().answerError(Errors.OFFSET_MOVED_TO_TIERED_STORAGE, -1, -1);

        await(() -> mirror.fatalError != null, "the fatal error is recorded");
        assertEquals(Errors.OFFSET_MOVED_TO_TIERED_STORAGE, mirror.fatalError);
        assertEquals(Errors.OFFSET_MOVED_TO_TIERED_STORAGE, mirror.lastError);
        assertTrue(mirror.lastErrorMessage.contains("tiered storage"), mirror.lastErrorMessage);
        assertFalse(mirror.leaderLookupNeeded, "a fatal error is no leader move");
        assertNull(source5.nextWithin(QUIET_MS), "fetched again after a fatal error");
        fetchers.shutdownIdleFetchers();
        assertEquals(0, fetchers.fetcherCount(), "the fetcher still has the partition");
    }

    @Test
    @DisplayName("AM-04 OFFSET_OUT_OF_RANGE below the source log start: no fetch while the source offsets are "
        + "looked up on the lookup executor, then the log restarts at the source log start and fetching resumes there")
    void offsetOutOfRangeBelowTheSourceLogStartRestartsTheLogThere() throws Exception
    {
        fetchers.add(mirror, null, SOURCE_5, Map.of());
        source5.next().answerError(Errors.OFFSET_OUT_OF_RANGE, -1, -1);

        await(() -> !lookupThreads.isEmpty(), "the source offsets are asked for");
        assertNull(source5.nextWithin(QUIET_MS), "fetched before the source offsets were known");
        assertEquals(List.of("test-mirror-offset-lookups"), lookupThreads, "one lookup, on the lookup executor");
        assertEquals(0L, partition.log().logEndOffset());

        sourceOffsets.complete(new long[] {100L, 250L});
        final Exchange resumed = source5.next();
        assertEquals(100L, resumed.partition().fetchOffset());
        assertEquals(100L, partition.log().logStartOffset(), "the log was not restarted at the source log start");
        assertEquals(100L, partition.log().logEndOffset());
        assertEquals(1, lookupThreads.size(), "the source offsets were asked for more than once");
        assertTrue(partition.isLeader());
    }
}
