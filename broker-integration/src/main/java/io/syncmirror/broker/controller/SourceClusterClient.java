package io.syncmirror.broker.controller;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;

/**
 * What the {@link MirrorMetadataManager} asks of a mirror's source cluster. Calls block (bounded by the
 * implementation's timeouts) and throw on failure: {@link SourceUnavailableException} when the source cannot be
 * reached. Implementations must allow calls from one thread at a time; {@link #close} from any thread.
 */
public interface SourceClusterClient extends AutoCloseable
{
    /** A source topic as the mirror needs it. */
    record SourceTopic(String name, Uuid topicId, int partitions, Map<String, String> configs,
        boolean uncleanLeaderElectionEnable)
    {
        public SourceTopic
        {
            configs = Map.copyOf(configs);
        }
    }

    /** The names of the source's non-internal topics. */
    Set<String> listTopics();

    /**
     * The named topics that exist at the source, with their dynamic (topic-level) configs and the effective
     * {@code unclean.leader.election.enable}; names unknown at the source are absent from the result.
     */
    Map<String, SourceTopic> describeTopics(Collection<String> names);

    /** The ids of the source's consumer groups. */
    List<String> listConsumerGroups();

    /** The group's committed offsets at the source. */
    Map<TopicPartition, OffsetAndMetadata> listConsumerGroupOffsets(String groupId);

    /**
     * The source's ACLs matching {@code filter} (DescribeAcls).
     *
     * @throws org.apache.kafka.common.errors.SecurityDisabledException when the source has no authorizer
     */
    Collection<AclBinding> describeAcls(AclBindingFilter filter);

    @Override
    void close();

    /** The source cluster could not be reached or did not answer in time. */
    final class SourceUnavailableException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        public SourceUnavailableException(final String message, final Throwable cause)
        {
            super(message, cause);
        }
    }
}
