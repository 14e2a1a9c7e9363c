package io.syncmirror.broker.controller;

import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AlterPartitionRequest;

import io.syncmirror.broker.metadata.PartitionState;

/** Request builders shared by the controller tests. */
final class ControllerFixture
{
    private ControllerFixture()
    {
    }

    static BrokerRegistrationRequestData registration(final int brokerId, final Uuid incarnation)
    {
        final BrokerRegistrationRequestData.ListenerCollection listeners =
            new BrokerRegistrationRequestData.ListenerCollection();
        listeners.add(new BrokerRegistrationRequestData.Listener().setName("PLAINTEXT").setHost("127.0.0.1")
            .setPort(9000 + brokerId).setSecurityProtocol((short) 0));
        return new BrokerRegistrationRequestData().setBrokerId(brokerId).setClusterId("test-cluster")
            .setIncarnationId(incarnation).setListeners(listeners).setPreviousBrokerEpoch(-1);
    }

    /** Registers and unfences the broker (heartbeat reporting the log end as applied); returns its epoch. */
    static long registerAndUnfence(final Controller controller, final int brokerId)
    {
        final long epoch = controller.registerBroker(registration(brokerId, Uuid.randomUuid())).brokerEpoch();
        final BrokerHeartbeatResponseData hb = heartbeat(controller, brokerId, epoch);
        if (hb.isFenced())
        {
            throw new AssertionError("broker " + brokerId + " still fenced");
        }
        return epoch;
    }

    static BrokerHeartbeatResponseData heartbeat(final Controller controller, final int brokerId, final long epoch)
    {
        return controller.heartbeat(new BrokerHeartbeatRequestData().setBrokerId(brokerId).setBrokerEpoch(epoch)
            .setCurrentMetadataOffset(controller.log().endOffset() - 1));
    }

    static CreateTopicsResponseData.CreatableTopicResult createTopic(final Controller controller, final String name,
        final int partitions, final int replicationFactor, final Map<String, String> configs)
    {
        final CreateTopicsRequestData.CreatableTopicCollection topics =
            new CreateTopicsRequestData.CreatableTopicCollection();
        final CreateTopicsRequestData.CreatableTopicConfigCollection configCollection =
            new CreateTopicsRequestData.CreatableTopicConfigCollection();
        configs.forEach((k, v) -> configCollection.add(new CreateTopicsRequestData.CreatableTopicConfig()
            .setName(k).setValue(v)));
        topics.add(new CreateTopicsRequestData.CreatableTopic().setName(name).setNumPartitions(partitions)
            .setReplicationFactor((short) replicationFactor).setConfigs(configCollection));
        return controller.createTopics(new CreateTopicsRequestData().setTopics(topics)).topics().find(name);
    }

    static AlterPartitionResponseData.PartitionData alterIsr(final Controller controller, final int brokerId,
        final PartitionState s, final List<Integer> newIsr, final int leaderEpoch, final int partitionEpoch)
    {
        final AlterPartitionRequestData request = new AlterPartitionRequestData().setBrokerId(brokerId)
            .setBrokerEpoch(controller.brokerEpoch(brokerId))
            .setTopics(List.of(new AlterPartitionRequestData.TopicData().setTopicId(s.topicId()).setPartitions(
                List.of(new AlterPartitionRequestData.PartitionData().setPartitionIndex(s.partition())
                    .setLeaderEpoch(leaderEpoch).setPartitionEpoch(partitionEpoch)
                    .setNewIsrWithEpochs(AlterPartitionRequest.newIsrToSimpleNewIsrWithBrokerEpochs(newIsr))))));
        final AlterPartitionResponseData response = controller.alterPartition(request, (short) 3);
        if (response.errorCode() != Errors.NONE.code())
        {
            return new AlterPartitionResponseData.PartitionData().setErrorCode(response.errorCode());
        }
        return response.topics().get(0).partitions().get(0);
    }

    static IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse alterConfig(final Controller c,
        final String topic, final String key, final String value, final AlterConfigOp.OpType op)
    {
        final IncrementalAlterConfigsRequestData.AlterableConfigCollection configs =
            new IncrementalAlterConfigsRequestData.AlterableConfigCollection();
        configs.add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName(key).setValue(value)
            .setConfigOperation(op.id()));
        final IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection resources =
            new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
        resources.add(new IncrementalAlterConfigsRequestData.AlterConfigsResource()
            .setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName(topic).setConfigs(configs));
        return c.incrementalAlterConfigs(new IncrementalAlterConfigsRequestData().setResources(resources))
            .responses().get(0);
    }
}
