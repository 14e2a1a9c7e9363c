package io.syncmirror.bench.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.protocol.AlterMirrorTopicTypeRequestData;
import io.syncmirror.protocol.AlterMirrorTopicTypeResponseData;
import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.FakeMirrorBroker;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.MirrorWireClient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(60)
class SyncPromotionTest
{
    private static final List<String> TOPICS = List.of("sync-bench-0000", "sync-bench-0001");

    /** A destination that accepts the alter (or answers it {@code alterError}) and turns SYNC after {@code polls}. */
    private static FakeMirrorBroker destination(final short alterError, final int syncAfterPolls,
        final AtomicInteger describes)
    {
        try
        {
            return new FakeMirrorBroker((header, request, socket, out) ->
            {
                final ApiMessage response;
                if (request instanceof AlterMirrorTopicTypeRequestData alter)
                {
                    final List<AlterMirrorTopicTypeResponseData.TopicResult> results = new ArrayList<>();
                    alter.topics().forEach(t -> results.add(new AlterMirrorTopicTypeResponseData.TopicResult()
                        .setTopicName(t.topicName()).setErrorCode(alterError)
                        .setErrorMessage(alterError == 0 ? "promotion pending" : "not served")));
                    response = new AlterMirrorTopicTypeResponseData().setTopics(results);
                }
                else
                {
                    final byte effective = describes.incrementAndGet() > syncAfterPolls ? MirrorType.SYNC.id() :
                        MirrorType.ASYNC.id();
                    final List<DescribeClusterMirrorsResponseData.MirrorTopic> topics = new ArrayList<>();
                    TOPICS.forEach(t -> topics.add(new DescribeClusterMirrorsResponseData.MirrorTopic()
                        .setTopicName(t).setDesiredMirrorType(MirrorType.SYNC.id()).setEffectiveMirrorType(effective)));
                    response = new DescribeClusterMirrorsResponseData().setMirrors(List.of(
                        new DescribeClusterMirrorsResponseData.MirrorDescription().setMirrorName("bench")
                            .setTopics(topics)));
                }
                FakeMirrorBroker.reply(out, header, response);
            });
        }
        catch (final java.io.IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static List<MirrorWireClient.HostPort> at(final FakeMirrorBroker broker)
    {
        return List.of(new MirrorWireClient.HostPort("127.0.0.1", broker.port()));
    }

    @Test
    void shouldReturnOnceEveryTopicIsEffectivelySync() throws Exception
    {
        final AtomicInteger describes = new AtomicInteger();
        try (FakeMirrorBroker broker = destination((short)0, 2, describes))
        {
            SyncPromotion.promote(at(broker), "bench", TOPICS, TimeUnit.SECONDS.toNanos(20));
            assertEquals(3, describes.get());
            final AlterMirrorTopicTypeRequestData alter = (AlterMirrorTopicTypeRequestData)broker.requests().get(0);
            assertEquals("bench", alter.mirrorName());
            assertEquals(2, alter.topics().size());
            alter.topics().forEach(t -> assertEquals(MirrorType.SYNC.id(), t.mirrorType()));
        }
    }

    @Test
    void shouldFailWithTheStateSeenWhenThePromotionDoesNotFinishInTime() throws Exception
    {
        try (FakeMirrorBroker broker = destination((short)0, Integer.MAX_VALUE, new AtomicInteger()))
        {
            final long startNs = System.nanoTime();
            final SyncPromotion.PromotionFailedException ex = assertThrows(
                SyncPromotion.PromotionFailedException.class,
                () -> SyncPromotion.promote(at(broker), "bench", TOPICS, TimeUnit.SECONDS.toNanos(2)));
            assertTrue(System.nanoTime() - startNs < TimeUnit.SECONDS.toNanos(10));
            assertTrue(ex.getMessage().contains("did not finish within 2 s (--sync-timeout-s)"), ex.getMessage());
            assertTrue(ex.getMessage().contains("0 of 2 topic(s) have EffectiveMirrorType SYNC"), ex.getMessage());
            assertTrue(ex.getMessage().contains("sync-bench-0000 desired=SYNC effective=ASYNC"), ex.getMessage());
            assertTrue(!ex.getMessage().contains("\n"), ex.getMessage());
        }
    }

    @Test
    void shouldFailAtOnceWhenTheDestinationRefusesTheAlter() throws Exception
    {
        final AtomicInteger describes = new AtomicInteger();
        try (FakeMirrorBroker broker = destination(Errors.UNSUPPORTED_VERSION.code(), 0, describes))
        {
            final SyncPromotion.PromotionFailedException ex = assertThrows(
                SyncPromotion.PromotionFailedException.class,
                () -> SyncPromotion.promote(at(broker), "bench", TOPICS, TimeUnit.SECONDS.toNanos(30)));
            assertTrue(ex.getMessage().contains("UnsupportedVersionException"), ex.getMessage());
            assertTrue(ex.getMessage().contains("destination 1"), ex.getMessage());
            assertEquals(0, describes.get());
        }
    }
}
