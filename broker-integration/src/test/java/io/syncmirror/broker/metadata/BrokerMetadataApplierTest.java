package io.syncmirror.broker.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class BrokerMetadataApplierTest
{
    private static final Uuid T = Uuid.fromString("AAAAAAAAAAAAAAAAAAAABQ");

    private final RecordingListener listener = new RecordingListener();
    private final BrokerMetadataApplier applier = new BrokerMetadataApplier(1, 0, listener);
    private long nextOffset;

    private void append(final MetadataRecord... records)
    {
        final MemoryRecords batch = MetadataRecordCodec.encodeBatch(nextOffset, 0, List.of(records));
        nextOffset += records.length;
        applier.apply(batch, nextOffset);
    }

    @Test
    void shouldBuildAnImageAndTrackAppliedAndLatestKnownOffsets()
    {
        assertEquals(-1, applier.image().appliedOffset());
        append(new MetadataRecord.RegisterBroker(1, 0, T, "h1", 1, null),
            new MetadataRecord.RegisterBroker(2, 1, T, "h2", 2, "r"),
            new MetadataRecord.UnfenceBroker(1, 0));
        final MetadataImage image = applier.image();
        assertEquals(2, image.appliedOffset());
        assertEquals(2, image.latestKnownOffset());
        assertTrue(image.caughtUp());
        assertEquals(List.of(1), image.liveBrokers().stream().map(BrokerEndpoint::id).toList());
        assertTrue(image.registration(2).orElseThrow().fenced());

        applier.apply(MemoryRecords.EMPTY, 10);
        assertEquals(2, applier.image().appliedOffset());
        assertEquals(9, applier.image().latestKnownOffset());
        assertFalse(applier.image().caughtUp());
    }

    @Test
    @org.junit.jupiter.api.DisplayName("the applied offset moves past a control batch, so the next fetch starts after it")
    void shouldMovePastControlBatches()
    {
        append(new MetadataRecord.ProducerIdFloor(10), new MetadataRecord.ProducerIdFloor(20));
        final MemoryRecords leaderChange = MemoryRecords.withLeaderChangeMessage(2, 0, 1,
            java.nio.ByteBuffer.allocate(256), new org.apache.kafka.common.message.LeaderChangeMessage()
                .setLeaderId(1).setVoters(List.of()).setGrantingVoters(List.of()));
        applier.apply(leaderChange, 3);
        assertEquals(2, applier.image().appliedOffset());
        assertEquals(2, applier.image().latestKnownOffset());
        assertEquals(20, applier.producerIdFloor());
    }

    @Test
    @org.junit.jupiter.api.DisplayName("held, the applier builds the image but tells no partition of it; released, it "
        + "states every hosted partition once, as the image has it then")
    void shouldTellHostedPartitionsNothingUntilReleased()
    {
        applier.holdPartitions();
        append(new MetadataRecord.Topic("a", T),
            new MetadataRecord.Partition(new PartitionState("a", T, 0, List.of(1, 2), List.of(1, 2), 1, 0, 0)),
            new MetadataRecord.Partition(new PartitionState("a", T, 1, List.of(2), List.of(2), 2, 0, 0)));
        append(new MetadataRecord.Partition(new PartitionState("a", T, 0, List.of(1, 2), List.of(2), 2, 1, 1)));
        assertEquals(List.of(), listener.drain(), "nothing told while held");
        assertEquals(2, applier.image().topic("a").orElseThrow().partitions().get(0).leader(), "the image moves on");

        applier.releasePartitions();
        assertEquals(List.of("changed a-0 leader=2 isr=[2] config={}"), listener.drain(),
            "only the hosted partition, in its latest state");
        applier.releasePartitions();
        append(new MetadataRecord.Partition(new PartitionState("a", T, 0, List.of(1, 2), List.of(1, 2), 1, 2, 2)));
        assertEquals(List.of("changed a-0 leader=1 isr=[1, 2] config={}"), listener.drain(), "then told as usual");
    }

    @Test
    void shouldSkipRecordsAtOrBelowTheAppliedOffset()
    {
        final MemoryRecords batch = MetadataRecordCodec.encodeBatch(0, 0, List.of(
            new MetadataRecord.Topic("a", T),
            new MetadataRecord.Config("a", "retention.ms", "5")));
        applier.apply(batch, 2);
        applier.apply(batch, 2);
        applier.apply(MetadataRecordCodec.encodeBatch(2, 0, List.of(new MetadataRecord.Config("a", "retention.ms",
            "6"))), 3);
        assertEquals(Map.of("retention.ms", "6"), applier.image().topicConfig("a"));
    }

    @Test
    void shouldTellTheListenerOnlyAboutHostedPartitionsWithTheirConfig()
    {
        append(new MetadataRecord.Topic("t", T),
            new MetadataRecord.Config("t", "cleanup.policy", "compact"),
            new MetadataRecord.Partition(new PartitionState("t", T, 0, List.of(1, 2), List.of(1, 2), 1, 0, 0)),
            new MetadataRecord.Partition(new PartitionState("t", T, 1, List.of(2, 3), List.of(2, 3), 2, 0, 0)));
        assertEquals(List.of("changed t-0 leader=1 isr=[1, 2] config={cleanup.policy=compact}"), listener.drain());

        append(new MetadataRecord.PartitionChange(T, 0, List.of(2), 2, 1, 1),
            new MetadataRecord.PartitionChange(T, 1, List.of(3), 3, 1, 1));
        assertEquals(List.of("changed t-0 leader=2 isr=[2] config={cleanup.policy=compact}"), listener.drain());

        append(new MetadataRecord.Config("t", "retention.ms", "9"));
        assertEquals(List.of("config t {cleanup.policy=compact, retention.ms=9}"), listener.drain());

        append(new MetadataRecord.RemoveTopic(T));
        assertEquals(List.of("removed t-0"), listener.drain());
        assertTrue(applier.image().topic("t").isEmpty());
        assertTrue(applier.image().topic(T).isEmpty());
    }

    @Test
    void shouldReplaceTheImageWholeAndLeaveOldImagesUnchanged()
    {
        append(new MetadataRecord.Topic("t", T),
            new MetadataRecord.Partition(new PartitionState("t", T, 0, List.of(1), List.of(1), 1, 0, 0)));
        final MetadataImage before = applier.image();
        append(new MetadataRecord.PartitionChange(T, 0, List.of(1), -1, 1, 1));
        assertNotSame(before, applier.image());
        assertEquals(1, before.topic("t").orElseThrow().partitions().get(0).leader());
        assertEquals(-1, applier.image().topic("t").orElseThrow().partitions().get(0).leader());
    }

    @Test
    void shouldCompleteAwaitWhenAnImageSatisfiesTheCondition()
    {
        final CompletableFuture<MetadataImage> waiting = applier.await(img -> img.topic("late").isPresent());
        assertFalse(waiting.isDone());
        append(new MetadataRecord.Topic("other", T));
        assertFalse(waiting.isDone());
        append(new MetadataRecord.Topic("late", Uuid.fromString("AAAAAAAAAAAAAAAAAAAABg")));
        assertTrue(waiting.isDone());
        assertTrue(applier.await(img -> true).isDone());
    }

    @Test
    void shouldShowMirrorsAndTheirTopicsInTheImage()
    {
        final MetadataImage empty = applier.image();
        append(new MetadataRecord.Mirror("m", "src:1", Map.of(), List.of("a.*"), List.of()),
            new MetadataRecord.Topic("a1", T),
            new MetadataRecord.Config("a1", MirrorDefinition.MIRROR_NAME_CONFIG, "m"),
            new MetadataRecord.ProducerIdFloor(5000));
        final MetadataImage image = applier.image();
        assertEquals(List.of("a.*"), image.mirror("m").orElseThrow().includeTopics());
        assertEquals(List.of("a1"), image.mirrorTopics("m").stream().map(TopicMetadata::name).toList());
        assertEquals("m", image.mirrorName("a1").orElseThrow());
        assertTrue(empty.mirrors().isEmpty(), "an earlier image is unchanged");

        append(new MetadataRecord.Mirror("m", "src:2", Map.of(), List.of("a.*", "b"), List.of()),
            new MetadataRecord.Config("a1", MirrorDefinition.MIRROR_NAME_CONFIG, "m.removed"));
        assertEquals("src:2", applier.image().mirror("m").orElseThrow().sourceBootstrapServers());
        assertTrue(applier.image().mirrorTopics("m").isEmpty());
        assertEquals("src:1", image.mirror("m").orElseThrow().sourceBootstrapServers());

        append(new MetadataRecord.RemoveMirror("m"));
        assertTrue(applier.image().mirrors().isEmpty());
        assertTrue(applier.image().mirror("m").isEmpty());
    }

    @Test
    void shouldShowEachTopicsSyncRegistrationsAndMirrorTypeAndForgetThemWithTheTopic()
    {
        append(new MetadataRecord.Topic("a1", T));
        final MetadataImage before = applier.image();
        append(new MetadataRecord.MirrorSyncRegistrationChange(T, "dr", true),
            new MetadataRecord.MirrorSyncRegistrationChange(T, "dr2", true),
            new MetadataRecord.MirrorSyncRegistrationChange(T, "dr", false),
            new MetadataRecord.MirrorTopicTypeChange(T, (byte)1));
        assertEquals(java.util.Set.of("dr2"), applier.image().registeredMirrors(T));
        assertEquals(1, applier.image().syncState(T).mirrorType());
        assertTrue(before.registeredMirrors(T).isEmpty(), "an earlier image is unchanged");

        append(new MetadataRecord.RemoveTopic(T));
        assertEquals(MetadataImage.TopicSyncState.NONE, applier.image().syncState(T));
    }
}
