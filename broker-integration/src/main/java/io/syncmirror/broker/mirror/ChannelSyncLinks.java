package io.syncmirror.broker.mirror;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.broker.mirror.sync.RemotePartition;
import io.syncmirror.broker.mirror.sync.SyncLinks;
import io.syncmirror.protocol.RegisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.RegisterMirrorSyncTopicResponseData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicResponseData;

/**
 * The sync control's links over the coordinator's {@link MirrorCoordinator.SyncChannel}, whose calls block: each
 * runs on the executor installed with the channel (the coordinator's one sync-requests thread: requests leave in
 * the order they were made), so the coordinator's thread never waits on the network for them. The mirror's
 * source client is looked up on the calling (coordinator) thread, which owns it.
 */
final class ChannelSyncLinks implements SyncLinks
{
    /** The channel and the executor its calls run on, installed together. */
    private record Installed(MirrorCoordinator.SyncChannel channel, Executor executor)
    {
    }

    private final int brokerId;
    private final Function<String, SourceCluster> sources;
    private volatile Installed installed;

    ChannelSyncLinks(final int brokerId, final Function<String, SourceCluster> sources)
    {
        this.brokerId = brokerId;
        this.sources = sources;
    }

    /** Installs the channel; its blocking calls run on {@code executor}. Any thread. */
    void channel(final MirrorCoordinator.SyncChannel channel, final Executor executor)
    {
        this.installed = new Installed(channel, executor);
    }

    @FunctionalInterface
    private interface BlockingCall<T>
    {
        T call(MirrorCoordinator.SyncChannel channel) throws Exception;
    }

    private <T> CompletableFuture<T> submit(final BlockingCall<T> call)
    {
        final Installed current = installed;
        if (current == null)
        {
            return CompletableFuture.failedFuture(new KafkaException("the sync control path of broker " + brokerId +
                " is not connected yet"));
        }
        return CompletableFuture.supplyAsync(() ->
        {
            try
            {
                return call.call(current.channel());
            }
            catch (final IOException e)
            {
                throw new UncheckedIOException(e.getMessage(), e);
            }
            catch (final RuntimeException e)
            {
                throw e;
            }
            catch (final Exception e)
            {
                throw new KafkaException(e.getMessage(), e);
            }
        }, current.executor());
    }

    /** The source client of the mirror, looked up now (coordinator thread); a failed future when there is none. */
    private <T> CompletableFuture<T> toSource(final String mirrorName,
        final Function<SourceCluster, BlockingCall<T>> call)
    {
        final SourceCluster source;
        try
        {
            source = sources.apply(mirrorName);
        }
        catch (final RuntimeException e)
        {
            return CompletableFuture.failedFuture(e);
        }
        return submit(call.apply(source));
    }

    @Override
    public CompletableFuture<Answer> register(final String mirrorName, final Uuid topicId, final String topicName,
        final boolean recoveryPromotion, final long driverEpoch)
    {
        final RegisterMirrorSyncTopicRequestData request = new RegisterMirrorSyncTopicRequestData()
            .setMirrorName(mirrorName).setDriverEpoch(driverEpoch)
            .setTopics(List.of(new RegisterMirrorSyncTopicRequestData.TopicState()
                .setTopicId(topicId).setTopicName(topicName).setRecoveryPromotion(recoveryPromotion)));
        return toSource(mirrorName, source -> channel ->
        {
            final RegisterMirrorSyncTopicResponseData response = channel.sendToSource(source, request,
                RegisterMirrorSyncTopicResponseData.class);
            for (final RegisterMirrorSyncTopicResponseData.TopicResult result : response.topics())
            {
                if (result.topicName().equals(topicName))
                {
                    return new Answer(result.errorCode(), result.errorMessage());
                }
            }
            return new Answer(Errors.UNKNOWN_SERVER_ERROR.code(), "the source answered no result for the topic");
        });
    }

    @Override
    public CompletableFuture<Answer> unregister(final String mirrorName, final Uuid topicId, final String topicName,
        final long driverEpoch)
    {
        final UnregisterMirrorSyncTopicRequestData request = new UnregisterMirrorSyncTopicRequestData()
            .setMirrorName(mirrorName).setDriverEpoch(driverEpoch)
            .setTopics(List.of(new UnregisterMirrorSyncTopicRequestData.TopicState()
                .setTopicId(topicId).setTopicName(topicName)));
        return toSource(mirrorName, source -> channel ->
        {
            final UnregisterMirrorSyncTopicResponseData response = channel.sendToSource(source, request,
                UnregisterMirrorSyncTopicResponseData.class);
            return new Answer(response.errorCode(), response.errorMessage());
        });
    }

    @Override
    public CompletableFuture<Void> commitMirrorType(final Uuid topicId, final byte mirrorType,
        final long driverEpoch)
    {
        return submit(channel ->
        {
            channel.commitMirrorType(topicId, mirrorType, driverEpoch);
            return null;
        });
    }

    @Override
    public CompletableFuture<Map<Uuid, Map<Integer, RemotePartition>>> remotePartitions(final String mirrorName)
    {
        return submit(channel -> channel.remotePartitions(mirrorName));
    }
}
