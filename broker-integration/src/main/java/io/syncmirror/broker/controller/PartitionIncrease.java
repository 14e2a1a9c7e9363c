package io.syncmirror.broker.controller;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.broker.metadata.BrokerEndpoint;
import io.syncmirror.broker.metadata.MirrorTopicConfig;
import io.syncmirror.broker.metadata.PartitionState;

/**
 * CreatePartitions on the controller ({@code kafka-topics.sh --alter --partitions}, Admin's
 * {@code createPartitions}), validated as Kafka's controller validates it: the new count must be above the current
 * one (INVALID_PARTITIONS), explicit assignments must name one list per new partition, each of the topic's
 * replication factor, of distinct registered brokers (INVALID_REPLICA_ASSIGNMENT), and a topic may be named once
 * (INVALID_REQUEST). Without assignments the new partitions are spread over the unfenced brokers as CreateTopics
 * spreads them. A mirror topic is refused (POLICY_VIOLATION): its partition count follows its source's, which the
 * mirror's metadata sync applies through {@link Controller#addPartitions(String, int)}.
 *
 * <p>Runs on the controller's event thread, like every call into {@link Controller}.
 */
final class PartitionIncrease
{
    private PartitionIncrease()
    {
    }

    static CreatePartitionsResponseData createPartitions(final Controller controller,
        final CreatePartitionsRequestData request)
    {
        final CreatePartitionsResponseData response = new CreatePartitionsResponseData();
        final Set<String> seen = new HashSet<>();
        final Set<String> duplicates = new HashSet<>();
        for (final CreatePartitionsRequestData.CreatePartitionsTopic topic : request.topics())
        {
            if (!seen.add(topic.name()))
            {
                duplicates.add(topic.name());
            }
        }
        for (final CreatePartitionsRequestData.CreatePartitionsTopic topic : request.topics())
        {
            final CreatePartitionsResponseData.CreatePartitionsTopicResult result =
                new CreatePartitionsResponseData.CreatePartitionsTopicResult().setName(topic.name());
            response.results().add(result);
            if (duplicates.contains(topic.name()))
            {
                result.setErrorCode(Errors.INVALID_REQUEST.code())
                    .setErrorMessage("Duplicate topic name " + topic.name() + " in the request.");
                continue;
            }
            final Optional<String> problem = increase(controller, topic, request.validateOnly(), result);
            problem.ifPresent(result::setErrorMessage);
        }
        return response;
    }

    /** Validates and (unless {@code validateOnly}) applies one topic's increase; the error message if refused. */
    private static Optional<String> increase(final Controller controller,
        final CreatePartitionsRequestData.CreatePartitionsTopic topic, final boolean validateOnly,
        final CreatePartitionsResponseData.CreatePartitionsTopicResult result)
    {
        final String name = topic.name();
        if (controller.topicId(name).isEmpty())
        {
            result.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
            return Optional.of("Topic " + name + " does not exist.");
        }
        final String activeMirror = MirrorTopicConfig.activeMirror(controller.topicConfig(name));
        if (activeMirror != null)
        {
            result.setErrorCode(Errors.POLICY_VIOLATION.code());
            return Optional.of("Topic '" + name + "' is a mirror topic of cluster mirror '" + activeMirror
                + "': its partition count follows the source topic's");
        }
        final int current = controller.partitionCount(name);
        if (topic.count() < current)
        {
            result.setErrorCode(Errors.INVALID_PARTITIONS.code());
            return Optional.of("Topic currently has " + current + " partitions, which is higher than the requested "
                + topic.count() + ".");
        }
        if (topic.count() == current)
        {
            result.setErrorCode(Errors.INVALID_PARTITIONS.code());
            return Optional.of("Topic already has " + current + " partitions.");
        }
        final int added = topic.count() - current;
        final int replicationFactor = controller.partition(name, 0).map(PartitionState::replicas).map(List::size)
            .orElse(1);
        final List<List<Integer>> assignments;
        if (topic.assignments() == null)
        {
            final List<Integer> live = controller.unfencedBrokers();
            if (live.size() < replicationFactor)
            {
                result.setErrorCode(Errors.INVALID_REPLICATION_FACTOR.code());
                return Optional.of("Unable to replicate the partition " + replicationFactor + " time(s): The "
                    + "target replication factor of " + replicationFactor + " cannot be reached because only "
                    + live.size() + " broker(s) are registered.");
            }
            assignments = null;
        }
        else
        {
            final Optional<String> invalid = invalidAssignments(controller, topic, added, replicationFactor);
            if (invalid.isPresent())
            {
                result.setErrorCode(Errors.INVALID_REPLICA_ASSIGNMENT.code());
                return invalid;
            }
            assignments = new ArrayList<>();
            for (final CreatePartitionsRequestData.CreatePartitionsAssignment assignment : topic.assignments())
            {
                assignments.add(List.copyOf(assignment.brokerIds()));
            }
        }
        if (validateOnly)
        {
            return Optional.empty();
        }
        final MirrorOpResult applied = assignments == null ? controller.addPartitions(name, topic.count())
            : controller.addPartitions(name, assignments);
        if (applied.error() != Errors.NONE)
        {
            result.setErrorCode(applied.error().code());
            return Optional.ofNullable(applied.message());
        }
        return Optional.empty();
    }

    private static Optional<String> invalidAssignments(final Controller controller,
        final CreatePartitionsRequestData.CreatePartitionsTopic topic, final int added, final int replicationFactor)
    {
        if (topic.assignments().size() != added)
        {
            return Optional.of("Attempted to add " + added + " additional partition(s), but only "
                + topic.assignments().size() + " assignment(s) were specified.");
        }
        final Set<Integer> registered = new HashSet<>();
        for (final BrokerEndpoint broker : controller.registeredBrokers())
        {
            registered.add(broker.id());
        }
        for (final CreatePartitionsRequestData.CreatePartitionsAssignment assignment : topic.assignments())
        {
            final List<Integer> ids = assignment.brokerIds();
            if (ids.size() != replicationFactor)
            {
                return Optional.of("The manual partition assignment includes a partition with " + ids.size()
                    + " replica(s), but this is not consistent with previous partitions, which have "
                    + replicationFactor + " replica(s).");
            }
            if (new HashSet<>(ids).size() != ids.size())
            {
                return Optional.of("The manual partition assignment " + ids + " contains a duplicate replica.");
            }
            for (final int id : ids)
            {
                if (!registered.contains(id))
                {
                    return Optional.of("The manual partition assignment includes broker " + id
                        + ", but no such broker is registered.");
                }
            }
        }
        return Optional.empty();
    }
}
