package io.syncmirror.broker.mirror;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import io.syncmirror.broker.replica.Partition;
import io.syncmirror.protocol.MirrorReplicaInfo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The destination's sync reporter driven step by step ({@link SyncReporter#reportOnce()} on the test thread, an
 * injected clock, a scripted source link): what it sends, and when it sends again without a change.
 */
class SyncReporterTest
{
    private static final String MIRROR = LeaderMirrorFixture.MIRROR;
    private static final TopicPartition TP = LeaderMirrorFixture.TP;
    private static final long RETRY_MS = 250L;

    private final AtomicLong clockMs = new AtomicLong(1_000_000L);
    private final List<MirrorReplicaInfo> sent = new ArrayList<>();
    /** Connections the reporter opened. */
    private int linksOpened;
    /** The next report fails on the wire (the connection broke), once. */
    private boolean failNext;
    /** The partition's ISR join floor while each report was on its way, in order. */
    private final List<Long> floorsInFlight = new ArrayList<>();
    private LeaderMirrorFixture fixture;
    private Partition partition;
    private MirrorPartition mirror;
    private SyncReporter reporter;

    @BeforeEach
    void setUp()
    {
        fixture = new LeaderMirrorFixture(clockMs::get);
        partition = fixture.partition;
        mirror = fixture.mirror;
        mirror.validatedSourceEpoch = 0;
        // The source accepts every report: an answer without partitions.
        reporter = new SyncReporter(MIRROR, new Node(5, "127.0.0.1", 9), "test-reporter", RETRY_MS, clockMs::get,
            () -> new SyncReporter.Link()
            {
                {
                    linksOpened++;
                }

                @Override
                public FetchResponseData report(final MirrorReplicaInfo info) throws IOException
                {
                    if (failNext)
                    {
                        failNext = false;
                        throw new IOException("connection reset by the source");
                    }
                    sent.add(info);
                    floorsInFlight.add(partition.syncIsrJoinFloor());
                    return new FetchResponseData().setErrorCode(Errors.NONE.code());
                }

                @Override
                public void close()
                {
                }
            });
        reporter.track(mirror);
    }

    @AfterEach
    void tearDown()
    {
        reporter.close();
        fixture.close();
    }

    /** Appends {@code count} records fetched from the source, the source HW as the fetch answered it. */
    private void mirrored(final int count, final long sourceHighWatermark)
    {
        final SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++)
        {
            records[i] = new SimpleRecord(new byte[] {(byte)i});
        }
        final long leo = partition.appendMirrored(MemoryRecords.withRecords(partition.log().logEndOffset(),
            Compression.NONE, 0, records), sourceHighWatermark, 0L);
        assertTrue(leo > 0, "the destination leader appended");
        mirror.sourceHighWatermark = sourceHighWatermark;
    }

    /** The reported LEO of the partition in the last report sent, or -1 when it did not name the partition. */
    private long lastReportedLeo()
    {
        final MirrorReplicaInfo last = sent.get(sent.size() - 1);
        return last.topics().stream().flatMap(t -> t.partitions().stream())
            .filter(p -> p.partition() == TP.partition())
            .mapToLong(p -> p.replicaLastOffsets().get(0).lastFetchOffset()).findFirst().orElse(-1L);
    }

    @Test
    @DisplayName("SU-02 a partition whose source HW stays below what was reported is reported again after the "
        + "retry interval, with nothing changed: a report the source did not credit in full cannot stall it")
    void shouldReportAgainWhileTheSourceHighWatermarkStaysBehind()
    {
        reporter.reportOnce(); // the first report on a connection is a full one
        mirrored(3, 0L);
        reporter.reportOnce();
        assertEquals(2, sent.size());
        assertEquals(3L, lastReportedLeo(), "the change went out at once");

        // The source accepted it but its HW stays at 0: it did not credit the report (for instance it left the
        // reported member out of its gate). Nothing changes on the destination any more.
        reporter.reportOnce();
        clockMs.addAndGet(RETRY_MS - 1);
        reporter.reportOnce();
        assertEquals(2, sent.size(), "nothing changed and the retry interval has not passed: nothing sent");

        clockMs.addAndGet(1);
        reporter.reportOnce();
        assertEquals(3, sent.size(), "reported again once the interval passed with the source HW behind");
        assertEquals(3L, lastReportedLeo());
        assertEquals(1, reporter.refreshes());

        clockMs.addAndGet(RETRY_MS);
        reporter.reportOnce();
        assertEquals(4, sent.size(), "and again at every interval while the source HW stays behind");
    }

    @Test
    @DisplayName("SU-02 a partition whose source HW reached what was reported is not reported again without a "
        + "change, however long it stays idle")
    void shouldNotReportAgainOnceTheSourceCaughtUp()
    {
        reporter.reportOnce();
        mirrored(3, 0L);
        reporter.reportOnce();
        assertEquals(2, sent.size());
        mirror.sourceHighWatermark = 3L; // the source credited the report: its HW moved to the reported LEO
        for (int i = 0; i < 10; i++)
        {
            clockMs.addAndGet(RETRY_MS);
            reporter.reportOnce();
        }
        assertEquals(2, sent.size(), "an idle partition the source caught up with costs no reports");
        assertEquals(0, reporter.refreshes());
        assertEquals(0, reporter.mayBeBehind(), "nor a look at each retry interval");

        mirrored(2, 3L); // a change: reported, and looked at again until the source catches up with it
        reporter.reportOnce();
        assertEquals(3, sent.size());
        assertEquals(1, reporter.mayBeBehind());
        mirror.sourceHighWatermark = 5L;
        clockMs.addAndGet(RETRY_MS);
        reporter.reportOnce();
        assertEquals(0, reporter.mayBeBehind());
        assertEquals(3, sent.size());
    }

    /** The destination leader epoch the last report sent carries for the partition. */
    private int lastReportedLeaderEpoch()
    {
        final MirrorReplicaInfo last = sent.get(sent.size() - 1);
        return last.topics().stream().flatMap(t -> t.partitions().stream())
            .filter(p -> p.partition() == TP.partition()).mapToInt(MirrorReplicaInfo.MirroredTopicPartition::
                destinationLeaderEpoch).findFirst().orElse(-1);
    }

    @Test
    @DisplayName("SU-02 the first report on a connection is full; then only changes go out; after the connection "
        + "breaks, the next report is full again on a new connection")
    void shouldSendAFullReportOnEveryNewConnectionAndChangesBetween()
    {
        reporter.reportOnce();
        assertEquals(1, linksOpened);
        assertTrue(sent.get(0).fullReport(), "the first report on a connection is full");

        reporter.reportOnce();
        assertEquals(1, sent.size(), "nothing changed: nothing sent");
        mirrored(2, 0L);
        reporter.reportOnce();
        assertEquals(2, sent.size());
        assertTrue(!sent.get(1).fullReport(), "a change goes out as an incremental report");
        assertEquals(2L, lastReportedLeo());

        failNext = true;
        mirrored(1, 0L);
        reporter.reportOnce();
        assertEquals(2, sent.size(), "the report was lost with its connection");
        clockMs.addAndGet(RETRY_MS);
        reporter.reportOnce();
        assertEquals(2, linksOpened, "a new connection");
        assertEquals(3, sent.size());
        assertTrue(sent.get(2).fullReport(), "a new connection starts with a full report: the source may have "
            + "dropped what the old one told it");
        assertEquals(3L, lastReportedLeo(), "with the change the lost report carried");
    }

    @Test
    @DisplayName("SU-02 hazard 1: after a destination leader change the reports carry the new leader epoch, so the "
        + "source fences the deposed leader's")
    void shouldReportTheNewDestinationLeaderEpoch()
    {
        reporter.reportOnce();
        assertEquals(0, lastReportedLeaderEpoch());
        fixture.replicas.onPartitionChanged(new io.syncmirror.broker.metadata.PartitionState(TP.topic(),
            LeaderMirrorFixture.TOPIC_ID, TP.partition(), List.of(LeaderMirrorFixture.BROKER_ID),
            List.of(LeaderMirrorFixture.BROKER_ID), LeaderMirrorFixture.BROKER_ID, 1, 1),
            java.util.Map.of(io.syncmirror.broker.metadata.MirrorDefinition.MIRROR_NAME_CONFIG, MIRROR));
        partition.mirrorAppends(true);
        mirrored(1, 0L);
        reporter.reportOnce();
        assertEquals(2, sent.size());
        assertEquals(1, lastReportedLeaderEpoch());
    }

    @Test
    @DisplayName("hazard 2: the ISR join floor rises to a report's lowest ISR LEO when the report goes out, not when "
        + "its answer comes back (the source may acknowledge up to it as soon as the report lands)")
    void shouldRaiseTheJoinFloorBeforeTheReportIsAnswered()
    {
        reporter.reportOnce();
        mirrored(4, 0L);
        reporter.reportOnce();
        assertEquals(4L, lastReportedLeo());
        assertEquals(4L, floorsInFlight.get(floorsInFlight.size() - 1), "raised while the report was in flight");

        failNext = true; // lost on the wire: the source may still have credited it
        mirrored(2, 0L);
        reporter.reportOnce();
        assertEquals(6L, partition.syncIsrJoinFloor(), "a report that may have landed keeps the floor it raised");
    }

    /** The replica ids of the ISR the last report carries for the partition (empty when it did not name it). */
    private List<Integer> lastReportedIsr()
    {
        final MirrorReplicaInfo last = sent.get(sent.size() - 1);
        return last.topics().stream().flatMap(t -> t.partitions().stream())
            .filter(p -> p.partition() == TP.partition()).map(MirrorReplicaInfo.MirroredTopicPartition::isr)
            .findFirst().orElse(List.of());
    }

    @Test
    @DisplayName("SU-02 hazard 2: after the destination leader truncates below what it last reported (a source leader "
        + "change cut a tail), the reported ISR's join floor follows the last report down, so a follower holding "
        + "the whole truncated log is reported in the ISR again")
    void shouldReportAFollowerInTheIsrAfterATruncationBelowTheLastReport()
    {
        final int follower = LeaderMirrorFixture.BROKER_ID + 1;
        fixture.replicas.onPartitionChanged(new io.syncmirror.broker.metadata.PartitionState(TP.topic(),
            LeaderMirrorFixture.TOPIC_ID, TP.partition(), List.of(LeaderMirrorFixture.BROKER_ID, follower),
            List.of(LeaderMirrorFixture.BROKER_ID, follower), LeaderMirrorFixture.BROKER_ID, 1, 1),
            java.util.Map.of(io.syncmirror.broker.metadata.MirrorDefinition.MIRROR_NAME_CONFIG, MIRROR));
        partition.mirrorAppends(true);
        mirrored(3, 0L);
        mirrored(2, 0L); // two batches: a truncation keeps whole batches
        partition.onFollowerFetch(partition.role(), follower, 5L, clockMs.get());
        reporter.reportOnce();
        assertEquals(List.of(LeaderMirrorFixture.BROKER_ID, follower), lastReportedIsr(), "both hold offset 5");

        // The new source leader's log ends at 3: the destination read a tail it lacks and cuts it (never
        // acknowledged), then mirrors the new leader's next record. The follower is not heard from until it
        // fetches again, so that report leaves it out.
        assertEquals(3L, partition.truncateAsMirrorLeader(3L, false, clockMs.get(), true));
        mirrored(1, 0L);
        reporter.reportOnce();
        assertEquals(4L, lastReportedLeo());
        assertEquals(List.of(LeaderMirrorFixture.BROKER_ID), lastReportedIsr(),
            "a follower not heard from since the truncation is not reported in the ISR");

        // The follower truncated too and fetched the new record: it holds everything the leader holds, though
        // less than the report before the truncation named.
        partition.onFollowerFetch(partition.role(), follower, 4L, clockMs.get());
        reporter.reportOnce();
        assertEquals(List.of(LeaderMirrorFixture.BROKER_ID, follower), lastReportedIsr(),
            "a follower holding the whole truncated log is back in the reported ISR: otherwise the reported ISR "
                + "stays under its minimum until the source writes past the old report, which its blocked "
                + "producers may never do");
    }
}
