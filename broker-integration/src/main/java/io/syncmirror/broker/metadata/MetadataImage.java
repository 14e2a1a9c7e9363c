package io.syncmirror.broker.metadata;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.metadata.authorizer.StandardAcl;

/**
 * One applied state of the cluster metadata on a broker: topics with their partitions and config overrides,
 * registered brokers, cluster mirror definitions, and the metadata offsets it reflects. Immutable, so thread-safe; the
 * {@link BrokerMetadataApplier} replaces it whole after each applied fetch.
 *
 * <p>Maps are shared between successive images where unchanged (an apply copies the top-level maps it changes
 * and rebuilds only the topics it touched), so an image costs O(topics) references to make, not O(partitions).
 */
public final class MetadataImage implements MetadataView
{
    /** A registered broker as the metadata log describes it. */
    public record Broker(BrokerEndpoint endpoint, long epoch, boolean fenced)
    {
    }

    /**
     * A topic's synchronous-mirroring state: on a source, the destination mirrors registered for sync (the HW is
     * gated on them); on a destination, the topic's effective mirror type (0 ASYNC, 1 SYNC).
     */
    public record TopicSyncState(Set<String> registeredMirrors, byte mirrorType)
    {
        public static final TopicSyncState NONE = new TopicSyncState(Set.of(), (byte)0);
    }

    public static final MetadataImage EMPTY = new MetadataImage(-1, -1, -1, Map.of(), Map.of(), Map.of(), Map.of(),
        Map.of(), Map.of(), Map.of());

    private final long appliedOffset;
    private final long latestKnownOffset;
    private final int controllerId;
    private final Map<Uuid, TopicMetadata> topicsById;
    private final Map<String, Uuid> topicIdsByName;
    private final Map<Integer, Broker> brokers;
    private final Map<String, MirrorDefinition> mirrors;
    private final Map<Uuid, TopicSyncState> syncStates;
    private final Map<String, Map<Byte, MetadataRecord.UserScramCredential>> scramCredentials;
    private final Map<Uuid, StandardAcl> acls;

    MetadataImage(final long appliedOffset, final long latestKnownOffset, final int controllerId,
        final Map<Uuid, TopicMetadata> topicsById, final Map<String, Uuid> topicIdsByName,
        final Map<Integer, Broker> brokers, final Map<String, MirrorDefinition> mirrors,
        final Map<Uuid, TopicSyncState> syncStates,
        final Map<String, Map<Byte, MetadataRecord.UserScramCredential>> scramCredentials,
        final Map<Uuid, StandardAcl> acls)
    {
        this.scramCredentials = scramCredentials;
        this.acls = acls;
        this.mirrors = mirrors;
        this.syncStates = syncStates;
        this.appliedOffset = appliedOffset;
        this.latestKnownOffset = latestKnownOffset;
        this.controllerId = controllerId;
        this.topicsById = topicsById;
        this.topicIdsByName = topicIdsByName;
        this.brokers = brokers;
    }

    @Override
    public long appliedOffset()
    {
        return appliedOffset;
    }

    @Override
    public long latestKnownOffset()
    {
        return latestKnownOffset;
    }

    /** Whether everything the controller had committed when last heard from has been applied. */
    public boolean caughtUp()
    {
        return latestKnownOffset >= 0 && appliedOffset >= latestKnownOffset;
    }

    @Override
    public Optional<TopicMetadata> topic(final String name)
    {
        final Uuid id = topicIdsByName.get(name);
        return id == null ? Optional.empty() : Optional.ofNullable(topicsById.get(id));
    }

    @Override
    public Optional<TopicMetadata> topic(final Uuid id)
    {
        return Optional.ofNullable(topicsById.get(id));
    }

    @Override
    public Collection<TopicMetadata> topics()
    {
        return Collections.unmodifiableCollection(topicsById.values());
    }

    @Override
    public Collection<BrokerEndpoint> liveBrokers()
    {
        final List<BrokerEndpoint> out = new ArrayList<>();
        for (final Broker broker : brokers.values())
        {
            if (!broker.fenced())
            {
                out.add(broker.endpoint());
            }
        }
        return out;
    }

    /** Every registered broker, fenced or not, by id. */
    public Collection<Broker> registeredBrokers()
    {
        return Collections.unmodifiableCollection(brokers.values());
    }

    @Override
    public Optional<BrokerEndpoint> broker(final int id)
    {
        final Broker broker = brokers.get(id);
        return broker == null ? Optional.empty() : Optional.of(broker.endpoint());
    }

    public Optional<Broker> registration(final int id)
    {
        return Optional.ofNullable(brokers.get(id));
    }

    @Override
    public int controllerId()
    {
        return controllerId;
    }

    /** The topic's config overrides; empty when it has none or does not exist. */
    public Map<String, String> topicConfig(final String topic)
    {
        return topic(topic).map(TopicMetadata::config).orElse(Map.of());
    }

    /** Every mirror defined in the metadata log, by name (sorted). */
    public Map<String, MirrorDefinition> mirrors()
    {
        return Collections.unmodifiableMap(mirrors);
    }

    public Optional<MirrorDefinition> mirror(final String name)
    {
        return Optional.ofNullable(mirrors.get(name));
    }

    /** The topic's {@code mirror.name} config: the mirror it belongs to, or {@code M.removed}; empty when none. */
    public Optional<String> mirrorName(final String topic)
    {
        return Optional.ofNullable(topicConfig(topic).get(MirrorDefinition.MIRROR_NAME_CONFIG));
    }

    /** The topics whose {@code mirror.name} is exactly {@code mirrorName} (removed topics excluded). */
    public List<TopicMetadata> mirrorTopics(final String mirrorName)
    {
        final List<TopicMetadata> out = new ArrayList<>();
        for (final TopicMetadata t : topicsById.values())
        {
            if (mirrorName.equals(t.config().get(MirrorDefinition.MIRROR_NAME_CONFIG)))
            {
                out.add(t);
            }
        }
        return out;
    }

    Map<String, MirrorDefinition> mirrorsMap()
    {
        return mirrors;
    }

    /** Whether {@code other} holds the very same topics (ids, names, configs, partitions) as this image. */
    public boolean sameTopicsAs(final MetadataImage other)
    {
        return other != null && other.topicsById == topicsById;
    }

    Map<Uuid, TopicMetadata> topicsById()
    {
        return topicsById;
    }

    Map<String, Uuid> topicIdsByName()
    {
        return topicIdsByName;
    }

    Map<Integer, Broker> brokers()
    {
        return brokers;
    }

    /** A topic's synchronous-mirroring state; {@link TopicSyncState#NONE} when it has none. */
    public TopicSyncState syncState(final Uuid topicId)
    {
        return syncStates.getOrDefault(topicId, TopicSyncState.NONE);
    }

    /** The destination mirrors registered for sync replication of a source topic (empty: not sync-gated). */
    public Set<String> registeredMirrors(final Uuid topicId)
    {
        return syncState(topicId).registeredMirrors();
    }

    Map<Uuid, TopicSyncState> syncStatesMap()
    {
        return syncStates;
    }

    /**
     * The SCRAM credentials of the cluster metadata: user, then Kafka's mechanism type (sorted). The same map
     * instance until a credential changes, so a listener tells a change by identity.
     */
    public Map<String, Map<Byte, MetadataRecord.UserScramCredential>> scramCredentials()
    {
        return scramCredentials;
    }

    /** The access control entries of the cluster metadata, by id; the same instance until one changes. */
    public Map<Uuid, StandardAcl> acls()
    {
        return acls;
    }
}
