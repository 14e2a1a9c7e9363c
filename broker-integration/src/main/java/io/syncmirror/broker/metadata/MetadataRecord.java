package io.syncmirror.broker.metadata;

import java.util.List;
import java.util.Map;

import org.apache.kafka.common.Uuid;

/**
 * One entry of the controller's metadata log: the cluster's state is the ordered application of these records,
 * on the controller (replay at start) and on every broker (its image). Immutable, so thread-safe.
 *
 * <p>{@link MetadataRecordCodec} gives each record type a stable type code and a versioned binary form, stored as
 * the value of a Kafka record in the {@code __cluster_metadata} log.
 */
public sealed interface MetadataRecord
{
    /**
     * A broker registered (or re-registered with a new incarnation). A registration starts fenced; the broker
     * epoch is the metadata offset of this record, so it grows with every registration, also across restarts.
     */
    record RegisterBroker(int brokerId, long brokerEpoch, Uuid incarnationId, String host, int port, String rack,
        List<ListenerEndpoint> listeners) implements MetadataRecord
    {
        public RegisterBroker
        {
            listeners = listeners == null ? List.of() : List.copyOf(listeners);
        }

        /** A registration of one endpoint ({@code host:port} serves every client). */
        public RegisterBroker(final int brokerId, final long brokerEpoch, final Uuid incarnationId, final String host,
            final int port, final String rack)
        {
            this(brokerId, brokerEpoch, incarnationId, host, port, rack, List.of());
        }

        /** The registered broker's addresses. */
        public BrokerEndpoint endpoint()
        {
            return new BrokerEndpoint(brokerId, host, port, rack, listeners);
        }
    }

    /** The broker lost its session (or asked to shut down): it may lead nothing and sits in no ISR but a last one. */
    record FenceBroker(int brokerId, long brokerEpoch) implements MetadataRecord
    {
    }

    /** The broker heartbeats and has caught up with the metadata log: it may lead and join ISRs again. */
    record UnfenceBroker(int brokerId, long brokerEpoch) implements MetadataRecord
    {
    }

    /** A topic exists under this name and id; its partitions follow as {@link Partition} records. */
    record Topic(String name, Uuid topicId) implements MetadataRecord
    {
    }

    /** A partition's full state (at creation). */
    record Partition(PartitionState state) implements MetadataRecord
    {
    }

    /** A partition's new leader, ISR and epochs; the assignment is unchanged. */
    record PartitionChange(Uuid topicId, int partition, List<Integer> isr, int leader, int leaderEpoch,
        int partitionEpoch) implements MetadataRecord
    {
        public PartitionChange
        {
            isr = List.copyOf(isr);
        }
    }

    /** The topic, its partitions and its config overrides are gone. */
    record RemoveTopic(Uuid topicId) implements MetadataRecord
    {
    }

    /** A topic config override set ({@code value} non-null) or removed ({@code value} null). */
    record Config(String topic, String key, String value) implements MetadataRecord
    {
    }

    /** Producer ids below {@code nextBlockStart} have been handed out: never hand them out again. */
    record ProducerIds(int brokerId, long brokerEpoch, long nextBlockStart) implements MetadataRecord
    {
    }

    /**
     * Producer ids below {@code floor} must never be handed out (they may appear in mirrored batches): the next
     * block starts at or above it. Raised at mirror failover; a lower floor than the current one changes nothing.
     */
    record ProducerIdFloor(long floor) implements MetadataRecord
    {
    }

    /** A cluster mirror is defined (created, or replaced whole under the same name). */
    record Mirror(String name, String sourceBootstrapServers, Map<String, String> sourceConfigs,
        List<String> includeTopics, List<String> excludeTopics, Map<String, String> mirrorConfigs)
        implements MetadataRecord
    {
        public Mirror
        {
            final MirrorDefinition normalized = new MirrorDefinition(name, sourceBootstrapServers, sourceConfigs,
                includeTopics, excludeTopics, mirrorConfigs);
            sourceBootstrapServers = normalized.sourceBootstrapServers();
            sourceConfigs = normalized.sourceConfigs();
            includeTopics = normalized.includeTopics();
            excludeTopics = normalized.excludeTopics();
            mirrorConfigs = normalized.mirrorConfigs();
        }

        /** A mirror without mirror configs. */
        public Mirror(final String name, final String sourceBootstrapServers, final Map<String, String> sourceConfigs,
            final List<String> includeTopics, final List<String> excludeTopics)
        {
            this(name, sourceBootstrapServers, sourceConfigs, includeTopics, excludeTopics, Map.of());
        }

        public static Mirror of(final MirrorDefinition d)
        {
            return new Mirror(d.name(), d.sourceBootstrapServers(), d.sourceConfigs(), d.includeTopics(),
                d.excludeTopics(), d.mirrorConfigs());
        }

        public MirrorDefinition definition()
        {
            return new MirrorDefinition(name, sourceBootstrapServers, sourceConfigs, includeTopics, excludeTopics,
                mirrorConfigs);
        }

        @Override
        public String toString()
        {
            return "Mirror[" + definition() + "]";
        }
    }

    /** The mirror definition is gone (its topics were removed from it or deleted first). */
    record RemoveMirror(String name) implements MetadataRecord
    {
    }

    /**
     * Source cluster: a destination mirror joins ({@code registered}) or leaves a topic's set of registered sync
     * mirrors (the sync text's MirrorSyncRegistrationChangeRecord); partition leaders gate the HW on that set.
     */
    record MirrorSyncRegistrationChange(Uuid topicId, String mirrorName, boolean registered) implements MetadataRecord
    {
    }

    /**
     * Destination cluster: a mirror topic's effective mirror type, 0 ASYNC or 1 SYNC (the sync text's
     * MirrorTopicTypeChangeRecord); it drives the mirror fetcher's mode. {@code driverEpoch} numbers a commit of
     * the topic's sync driver ({@link SyncCommitFence}), -1 for others.
     */
    record MirrorTopicTypeChange(Uuid topicId, byte mirrorType, long driverEpoch) implements MetadataRecord
    {
        public MirrorTopicTypeChange(final Uuid topicId, final byte mirrorType)
        {
            this(topicId, mirrorType, SyncCommitFence.NONE);
        }
    }

    /**
     * A user's salted SCRAM credential for one mechanism (Kafka's UserScramCredentialRecord): what the server side
     * of a SCRAM exchange needs, never the password. {@code mechanism} is Kafka's ScramMechanism type (1
     * SCRAM-SHA-256, 2 SCRAM-SHA-512).
     */
    record UserScramCredential(String user, byte mechanism, byte[] salt, byte[] storedKey, byte[] serverKey,
        int iterations) implements MetadataRecord
    {
        @Override
        public boolean equals(final Object o)
        {
            return o instanceof UserScramCredential other && user.equals(other.user) &&
                mechanism == other.mechanism && java.util.Arrays.equals(salt, other.salt) &&
                java.util.Arrays.equals(storedKey, other.storedKey) &&
                java.util.Arrays.equals(serverKey, other.serverKey) && iterations == other.iterations;
        }

        @Override
        public int hashCode()
        {
            return java.util.Objects.hash(user, mechanism, java.util.Arrays.hashCode(salt),
                java.util.Arrays.hashCode(storedKey), java.util.Arrays.hashCode(serverKey), iterations);
        }

        /** The keys stay out of logs. */
        @Override
        public String toString()
        {
            return "UserScramCredential[user=" + user + ", mechanism=" + mechanism + ", iterations=" + iterations +
                ", salt, storedKey and serverKey hidden]";
        }
    }

    /** A user's SCRAM credential for one mechanism is deleted (Kafka's RemoveUserScramCredentialRecord). */
    record RemoveUserScramCredential(String user, byte mechanism) implements MetadataRecord
    {
    }

    /**
     * An access control entry (Kafka's AccessControlEntryRecord), as Kafka's StandardAuthorizer holds it; the
     * codes are Kafka's ResourceType, PatternType, AclOperation and AclPermissionType codes.
     */
    record Acl(Uuid id, byte resourceType, String resourceName, byte patternType, String principal, String host,
        byte operation, byte permissionType) implements MetadataRecord
    {
        public static Acl of(final Uuid id, final org.apache.kafka.metadata.authorizer.StandardAcl acl)
        {
            return new Acl(id, acl.resourceType().code(), acl.resourceName(), acl.patternType().code(),
                acl.principal(), acl.host(), acl.operation().code(), acl.permissionType().code());
        }

        public org.apache.kafka.metadata.authorizer.StandardAcl acl()
        {
            return new org.apache.kafka.metadata.authorizer.StandardAcl(
                org.apache.kafka.common.resource.ResourceType.fromCode(resourceType), resourceName,
                org.apache.kafka.common.resource.PatternType.fromCode(patternType), principal, host,
                org.apache.kafka.common.acl.AclOperation.fromCode(operation),
                org.apache.kafka.common.acl.AclPermissionType.fromCode(permissionType));
        }
    }

    /** The access control entry {@code id} is deleted (Kafka's RemoveAccessControlEntryRecord). */
    record RemoveAcl(Uuid id) implements MetadataRecord
    {
    }

    /**
     * An ACL the destination keeps because a mirror's ACL sync copied it from the source; the entry is named by
     * its {@code acl}'s id, an id of its own (not the id of the ACL in force). {@code held}: a grant on a
     * read-only mirror topic kept back until failover, not in the ACLs; otherwise the ACL is in force, and
     * {@code created} says whether the sync wrote it (so removing it at the source removes it here) or found it
     * already there (a user's own, left alone). Controller state only: brokers ignore it.
     */
    record MirrorAcl(String mirrorName, boolean held, boolean created, Acl acl) implements MetadataRecord
    {
        public Uuid id()
        {
            return acl.id();
        }
    }

    /** A mirror's ACL sync no longer keeps the entry (see {@link MirrorAcl}). */
    record RemoveMirrorAcl(Uuid id) implements MetadataRecord
    {
    }
}
