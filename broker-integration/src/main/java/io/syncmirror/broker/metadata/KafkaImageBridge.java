package io.syncmirror.broker.metadata;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metadata.FeatureLevelRecord;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.RegisterBrokerRecord;
import org.apache.kafka.common.metadata.RemoveTopicRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.common.metadata.UnregisterBrokerRecord;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataProvenance;
import org.apache.kafka.server.common.GroupVersion;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one bridge from this broker's metadata image to Kafka's ({@code org.apache.kafka.image.MetadataImage}), for
 * the Kafka components the broker embeds (the group coordinator today). Thread-safety: {@link #onImage} from the
 * metadata thread (or any thread); everything else happens on the bridge's own thread, which owns the Kafka image
 * and calls the subscribers, one change at a time, in image order.
 *
 * <p>Each of our images is translated into the Kafka metadata records that turn the previous Kafka image into
 * the new one (TopicRecord, PartitionRecord, RemoveTopicRecord, RegisterBrokerRecord, UnregisterBrokerRecord,
 * and FeatureLevelRecord for {@code metadata.version} and the finalized {@code group.version} once), replayed into
 * a {@link MetadataDelta} and applied. Images share unchanged topics by reference, so the diff costs one reference
 * comparison per topic when topics changed and nothing when they did not. Images that arrive while the bridge is
 * busy are coalesced: subscribers see the newest, with a delta from the last one they saw.
 *
 * <p>The subscribers run on this thread and not on the metadata thread because Kafka's group coordinator joins
 * on its own writes when a topic is deleted: replication must never wait for that.
 */
public final class KafkaImageBridge implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(KafkaImageBridge.class);
    /** The listener name and protocol brokers are registered with in the Kafka image. */
    private static final String LISTENER_NAME = "PLAINTEXT";

    /** Receives each new Kafka image and the delta from the previous one, on the bridge's thread. */
    @FunctionalInterface
    public interface Subscriber
    {
        void onMetadataUpdate(MetadataDelta delta, org.apache.kafka.image.MetadataImage image);
    }

    private final List<Subscriber> subscribers = new CopyOnWriteArrayList<>();
    private final AtomicReference<MetadataImage> pending = new AtomicReference<>();
    private final Thread thread;
    private volatile boolean running = true;

    // Owned by the bridge's thread.
    private MetadataImage translated = MetadataImage.EMPTY;
    private volatile org.apache.kafka.image.MetadataImage current = org.apache.kafka.image.MetadataImage.EMPTY;

    public KafkaImageBridge(final int brokerId)
    {
        this.thread = new Thread(this::run, "kafka-image-bridge-" + brokerId);
        this.thread.setDaemon(true);
    }

    /** Adds a subscriber; call before {@link #start()}, so that the first delta it sees starts from the empty image. */
    public void subscribe(final Subscriber subscriber)
    {
        if (thread.isAlive())
        {
            throw new IllegalStateException("subscribe before the bridge starts");
        }
        subscribers.add(Objects.requireNonNull(subscriber, "subscriber"));
    }

    public void start()
    {
        thread.start();
    }

    /** Our newest image; the bridge translates it (or a newer one) soon after. Never blocks. */
    public void onImage(final MetadataImage image)
    {
        pending.set(image);
        LockSupport.unpark(thread);
    }

    /** The Kafka image last handed to the subscribers. Any thread. */
    public org.apache.kafka.image.MetadataImage current()
    {
        return current;
    }

    private void run()
    {
        while (running)
        {
            final MetadataImage next = pending.getAndSet(null);
            if (next == null)
            {
                LockSupport.park(this);
                continue;
            }
            try
            {
                publish(next);
            }
            catch (final RuntimeException e)
            {
                LOG.error("translating metadata image at offset {} failed", next.appliedOffset(), e);
            }
        }
    }

    private void publish(final MetadataImage next)
    {
        final List<ApiMessage> records = changes(translated, next);
        translated = next;
        if (records.isEmpty())
        {
            return;
        }
        final MetadataDelta delta = new MetadataDelta.Builder().setImage(current).build();
        for (final ApiMessage record : records)
        {
            delta.replay(record);
        }
        final long offset = Math.max(0, next.appliedOffset());
        final org.apache.kafka.image.MetadataImage image = delta.apply(new MetadataProvenance(offset, 0, 0L, true));
        current = image;
        for (final Subscriber subscriber : subscribers)
        {
            try
            {
                subscriber.onMetadataUpdate(delta, image);
            }
            catch (final RuntimeException e)
            {
                LOG.error("metadata subscriber {} failed at offset {}", subscriber, offset, e);
            }
        }
    }

    /** The Kafka metadata records that take an image translated from {@code before} to one of {@code after}. */
    static List<ApiMessage> changes(final MetadataImage before, final MetadataImage after)
    {
        final List<ApiMessage> records = new ArrayList<>();
        if (before == MetadataImage.EMPTY)
        {
            records.add(new FeatureLevelRecord().setName(MetadataVersion.FEATURE_NAME)
                .setFeatureLevel(MetadataVersion.LATEST_PRODUCTION.featureLevel()));
            records.add(new FeatureLevelRecord().setName(GroupVersion.FEATURE_NAME)
                .setFeatureLevel(GroupVersion.GV_1.featureLevel()));
        }
        if (!after.sameTopicsAs(before))
        {
            topicChanges(before.topicsById(), after.topicsById(), records);
        }
        if (after.brokers() != before.brokers())
        {
            brokerChanges(before.brokers(), after.brokers(), records);
        }
        return records;
    }

    private static void topicChanges(final Map<Uuid, TopicMetadata> before, final Map<Uuid, TopicMetadata> after,
        final List<ApiMessage> records)
    {
        for (final Map.Entry<Uuid, TopicMetadata> entry : before.entrySet())
        {
            if (!after.containsKey(entry.getKey()))
            {
                records.add(new RemoveTopicRecord().setTopicId(entry.getKey()));
            }
        }
        for (final Map.Entry<Uuid, TopicMetadata> entry : after.entrySet())
        {
            final TopicMetadata was = before.get(entry.getKey());
            final TopicMetadata now = entry.getValue();
            if (was == now)
            {
                continue;
            }
            if (was == null)
            {
                records.add(new TopicRecord().setName(now.name()).setTopicId(now.id()));
            }
            for (int i = 0; i < now.partitions().size(); i++)
            {
                final PartitionState state = now.partitions().get(i);
                if (was == null || i >= was.partitions().size() || !state.equals(was.partitions().get(i)))
                {
                    records.add(partitionRecord(state));
                }
            }
        }
    }

    private static PartitionRecord partitionRecord(final PartitionState state)
    {
        return new PartitionRecord().setTopicId(state.topicId()).setPartitionId(state.partition())
            .setReplicas(new ArrayList<>(state.replicas())).setIsr(new ArrayList<>(state.isr()))
            .setLeader(state.leader()).setLeaderEpoch(state.leaderEpoch()).setPartitionEpoch(state.partitionEpoch());
    }

    private static void brokerChanges(final Map<Integer, MetadataImage.Broker> before,
        final Map<Integer, MetadataImage.Broker> after, final List<ApiMessage> records)
    {
        for (final Map.Entry<Integer, MetadataImage.Broker> entry : before.entrySet())
        {
            if (!after.containsKey(entry.getKey()))
            {
                records.add(new UnregisterBrokerRecord().setBrokerId(entry.getKey())
                    .setBrokerEpoch(entry.getValue().epoch()));
            }
        }
        for (final Map.Entry<Integer, MetadataImage.Broker> entry : after.entrySet())
        {
            final MetadataImage.Broker now = entry.getValue();
            if (now.equals(before.get(entry.getKey())))
            {
                continue;
            }
            final BrokerEndpoint endpoint = now.endpoint();
            final RegisterBrokerRecord.BrokerEndpointCollection endpoints =
                new RegisterBrokerRecord.BrokerEndpointCollection();
            endpoints.add(new RegisterBrokerRecord.BrokerEndpoint().setName(LISTENER_NAME).setHost(endpoint.host())
                .setPort(endpoint.port()).setSecurityProtocol(SecurityProtocol.PLAINTEXT.id));
            records.add(new RegisterBrokerRecord().setBrokerId(endpoint.id()).setBrokerEpoch(now.epoch())
                // A registration's incarnation is its epoch here: each registration gets a new one.
                .setIncarnationId(new Uuid(endpoint.id() + 1L, now.epoch() + 1L)).setEndPoints(endpoints)
                .setRack(endpoint.rack()).setFenced(now.fenced()));
        }
    }

    @Override
    public void close()
    {
        running = false;
        LockSupport.unpark(thread);
        try
        {
            thread.join(5_000);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
