package io.syncmirror.broker.authorization;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.ConsumerGroupDescribeRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.DescribeTransactionsRequest;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.apache.kafka.common.resource.ResourceType;

import io.syncmirror.broker.network.RequestContext;

/**
 * The permission table of every API but Produce, Metadata, Fetch (which {@link RequestAuthorization} splits by
 * topic) and those {@link ResourceSplits} and {@link PartialAnswers} answer per resource, as Kafka's request handlers check them: the operation each needs
 * on each resource it names; a request is denied whole when any is denied. Stateless.
 */
final class Permissions
{
    private Permissions()
    {
    }

    /** The denial of {@code request}, or null when every resource it names is allowed. */
    static ApiException check(final RequestAuthorization auth, final RequestContext context,
        final AbstractRequest request)
    {
        return switch (request.apiKey())
        {
            // A consumer's are answered per topic by PartialAnswers.
            case LIST_OFFSETS -> ((ListOffsetsRequest)request).replicaId() >= 0 ? cluster(auth, context,
                AclOperation.CLUSTER_ACTION) : null;
            case OFFSET_FOR_LEADER_EPOCH -> ((OffsetsForLeaderEpochRequest)request).data().replicaId() >= 0 ?
                cluster(auth, context, AclOperation.CLUSTER_ACTION) : null;
            // A batched one (version 4+) is answered per key by PartialAnswers.
            case FIND_COORDINATOR -> request.version() >= 4 ? null :
                findCoordinator(auth, context, (FindCoordinatorRequest)request);
            case JOIN_GROUP -> group(auth, context, AclOperation.READ, ((JoinGroupRequest)request).data().groupId());
            case SYNC_GROUP -> group(auth, context, AclOperation.READ, ((SyncGroupRequest)request).data().groupId());
            case HEARTBEAT -> group(auth, context, AclOperation.READ, ((HeartbeatRequest)request).data().groupId());
            case LEAVE_GROUP -> group(auth, context, AclOperation.READ, ((LeaveGroupRequest)request).data().groupId());
            // Its topics are split by ResourceSplits once the group is allowed.
            case OFFSET_COMMIT -> group(auth, context, AclOperation.READ,
                ((OffsetCommitRequest)request).data().groupId());
            case OFFSET_FETCH -> null; // per group and topic in PartialAnswers
            case TXN_OFFSET_COMMIT -> first(group(auth, context, AclOperation.READ,
                ((TxnOffsetCommitRequest)request).data().groupId()), topics(auth, context, AclOperation.READ,
                ((TxnOffsetCommitRequest)request).data().topics().stream().map(t -> t.name()).toList()));
            case CONSUMER_GROUP_DESCRIBE -> groups(auth, context, AclOperation.DESCRIBE,
                ((ConsumerGroupDescribeRequest)request).data().groupIds());
            case OFFSET_DELETE -> first(group(auth, context, AclOperation.DELETE,
                ((OffsetDeleteRequest)request).data().groupId()), topics(auth, context, AclOperation.READ,
                ((OffsetDeleteRequest)request).data().topics().stream().map(t -> t.name()).toList()));
            case CONSUMER_GROUP_HEARTBEAT -> consumerGroupHeartbeat(auth, context,
                (ConsumerGroupHeartbeatRequest)request);
            // Split by resource in ResourceSplits and PartialAnswers.
            case CREATE_TOPICS, DELETE_TOPICS, DESCRIBE_CONFIGS, ALTER_CONFIGS, INCREMENTAL_ALTER_CONFIGS,
                CREATE_PARTITIONS, DELETE_RECORDS, DESCRIBE_PRODUCERS, DESCRIBE_GROUPS, DELETE_GROUPS -> null;
            case INIT_PRODUCER_ID -> initProducerId(auth, context, (InitProducerIdRequest)request);
            case ADD_PARTITIONS_TO_TXN -> addPartitionsToTxn(auth, context, (AddPartitionsToTxnRequest)request);
            case ADD_OFFSETS_TO_TXN -> first(transactionalId(auth, context,
                ((AddOffsetsToTxnRequest)request).data().transactionalId()), group(auth, context, AclOperation.READ,
                ((AddOffsetsToTxnRequest)request).data().groupId()));
            case END_TXN -> transactionalId(auth, context, ((EndTxnRequest)request).data().transactionalId());
            case DESCRIBE_TRANSACTIONS -> transactionalIds(auth, context, AclOperation.DESCRIBE,
                ((DescribeTransactionsRequest)request).data().transactionalIds());
            case DESCRIBE_ACLS, DESCRIBE_USER_SCRAM_CREDENTIALS, DESCRIBE_LOG_DIRS, DESCRIBE_QUORUM,
                LIST_PARTITION_REASSIGNMENTS -> cluster(auth, context, AclOperation.DESCRIBE);
            case CREATE_ACLS, DELETE_ACLS, ALTER_USER_SCRAM_CREDENTIALS, ELECT_LEADERS, ALTER_REPLICA_LOG_DIRS,
                ALTER_PARTITION_REASSIGNMENTS -> cluster(auth, context, AclOperation.ALTER);
            // Kafka answers DescribeCluster to any client; the operations it could report are not computed.
            case DESCRIBE_CLUSTER -> null;
            // Broker-to-broker and broker-to-controller APIs, and every API this table does not name.
            default -> cluster(auth, context, AclOperation.CLUSTER_ACTION);
        };
    }

    private static ApiException first(final ApiException a, final ApiException b)
    {
        return a != null ? a : b;
    }

    private static ApiException cluster(final RequestAuthorization auth, final RequestContext context,
        final AclOperation operation)
    {
        return auth.clusterAllows(context, operation) ? null : new ClusterAuthorizationException(
            "Request " + context.header().apiKey() + " needs " + operation + " on the cluster");
    }

    private static ApiException group(final RequestAuthorization auth, final RequestContext context,
        final AclOperation operation, final String group)
    {
        return group == null || auth.allowed(context, operation, ResourceType.GROUP, group) ? null :
            new GroupAuthorizationException("Not authorized to access group: " + group);
    }

    private static ApiException groups(final RequestAuthorization auth, final RequestContext context,
        final AclOperation operation, final List<String> groups)
    {
        for (final String group : groups)
        {
            final ApiException denied = group(auth, context, operation, group);
            if (denied != null)
            {
                return denied;
            }
        }
        return null;
    }

    private static ApiException topics(final RequestAuthorization auth, final RequestContext context,
        final AclOperation operation, final List<String> topics)
    {
        final List<String> denied = new ArrayList<>();
        for (final String topic : topics)
        {
            if (topic != null && !auth.allowed(context, operation, ResourceType.TOPIC, topic))
            {
                denied.add(topic);
            }
        }
        return denied.isEmpty() ? null : new TopicAuthorizationException(java.util.Set.copyOf(denied));
    }

    private static ApiException transactionalId(final RequestAuthorization auth, final RequestContext context,
        final String transactionalId)
    {
        return transactionalIds(auth, context, AclOperation.WRITE, List.of(transactionalId));
    }

    private static ApiException transactionalIds(final RequestAuthorization auth, final RequestContext context,
        final AclOperation operation, final List<String> ids)
    {
        for (final String id : ids)
        {
            if (id != null && !auth.allowed(context, operation, ResourceType.TRANSACTIONAL_ID, id))
            {
                return new TransactionalIdAuthorizationException("Transactional id " + id + " is not authorized");
            }
        }
        return null;
    }

    private static ApiException findCoordinator(final RequestAuthorization auth, final RequestContext context,
        final FindCoordinatorRequest request)
    {
        final List<String> keys = List.of(request.data().key());
        return request.data().keyType() == FindCoordinatorRequest.CoordinatorType.TRANSACTION.id() ?
            transactionalIds(auth, context, AclOperation.DESCRIBE, keys) :
            groups(auth, context, AclOperation.DESCRIBE, keys);
    }

    private static ApiException consumerGroupHeartbeat(final RequestAuthorization auth,
        final RequestContext context, final ConsumerGroupHeartbeatRequest request)
    {
        final List<String> subscribed = request.data().subscribedTopicNames();
        return first(group(auth, context, AclOperation.READ, request.data().groupId()),
            subscribed == null ? null : topics(auth, context, AclOperation.DESCRIBE, subscribed));
    }

    private static ApiException initProducerId(final RequestAuthorization auth, final RequestContext context,
        final InitProducerIdRequest request)
    {
        final String transactionalId = request.data().transactionalId();
        if (transactionalId != null)
        {
            return transactionalId(auth, context, transactionalId);
        }
        // An idempotent producer: IDEMPOTENT_WRITE on the cluster, or WRITE on some topic (Kafka's rule).
        return auth.clusterAllows(context, AclOperation.IDEMPOTENT_WRITE) ||
            auth.allowedAny(context, AclOperation.WRITE, ResourceType.TOPIC) ? null :
            new ClusterAuthorizationException("An idempotent producer needs IDEMPOTENT_WRITE on the cluster or "
                + "WRITE on a topic");
    }

    private static ApiException addPartitionsToTxn(final RequestAuthorization auth, final RequestContext context,
        final AddPartitionsToTxnRequest request)
    {
        if (request.version() >= 4)
        {
            // Brokers verifying transactions for their produce requests.
            return cluster(auth, context, AclOperation.CLUSTER_ACTION);
        }
        final AddPartitionsToTxnRequestData data = request.data();
        return first(transactionalId(auth, context, data.v3AndBelowTransactionalId()), topics(auth, context,
            AclOperation.WRITE, data.v3AndBelowTopics().stream().map(t -> t.name()).toList()));
    }
}
