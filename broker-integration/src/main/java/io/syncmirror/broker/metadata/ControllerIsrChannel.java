package io.syncmirror.broker.metadata;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AlterPartitionRequest;
import org.apache.kafka.common.requests.AlterPartitionResponse;

import io.syncmirror.broker.network.NodeClient;

/**
 * {@link IsrChangeChannel} over the controller's AlterPartition (API 56). Thread-safe: stateless apart from its
 * collaborators. Replica epochs in the new ISR are sent as -1 (unchecked), as a leader that does not track its
 * followers' broker epochs does.
 */
public final class ControllerIsrChannel implements IsrChangeChannel
{
    private final int brokerId;
    private final LongSupplier brokerEpoch;
    private final NodeClient controller;
    private final MetadataView metadata;

    /**
     * @param brokerEpoch this broker's current epoch ({@link BrokerLifecycleManager#brokerEpoch})
     * @param metadata    the broker's image, for the assignment the controller's answer does not repeat
     */
    public ControllerIsrChannel(final int brokerId, final LongSupplier brokerEpoch, final NodeClient controller,
        final MetadataView metadata)
    {
        this.brokerId = brokerId;
        this.brokerEpoch = brokerEpoch;
        this.controller = controller;
        this.metadata = metadata;
    }

    @Override
    public CompletableFuture<PartitionState> alterIsr(final TopicPartition partition, final Uuid topicId,
        final int leaderEpoch, final int partitionEpoch, final List<Integer> newIsr)
    {
        final AlterPartitionRequestData data = new AlterPartitionRequestData().setBrokerId(brokerId)
            .setBrokerEpoch(brokerEpoch.getAsLong())
            .setTopics(new ArrayList<>(List.of(new AlterPartitionRequestData.TopicData().setTopicId(topicId)
                .setPartitions(new ArrayList<>(List.of(new AlterPartitionRequestData.PartitionData()
                    .setPartitionIndex(partition.partition()).setLeaderEpoch(leaderEpoch)
                    .setPartitionEpoch(partitionEpoch)
                    .setNewIsrWithEpochs(AlterPartitionRequest.newIsrToSimpleNewIsrWithBrokerEpochs(newIsr))))))));
        return controller.<AlterPartitionResponse>send(new AlterPartitionRequest.Builder(data))
            .thenApply(response -> toState(partition, topicId, response.data()));
    }

    private PartitionState toState(final TopicPartition partition, final Uuid topicId,
        final AlterPartitionResponseData response)
    {
        if (response.errorCode() != Errors.NONE.code())
        {
            throw Errors.forCode(response.errorCode()).exception();
        }
        for (final AlterPartitionResponseData.TopicData topic : response.topics())
        {
            for (final AlterPartitionResponseData.PartitionData p : topic.partitions())
            {
                if (p.partitionIndex() != partition.partition())
                {
                    continue;
                }
                if (p.errorCode() != Errors.NONE.code())
                {
                    throw Errors.forCode(p.errorCode()).exception();
                }
                final List<Integer> replicas = metadata.topic(topicId)
                    .filter(t -> partition.partition() < t.partitions().size())
                    .map(t -> t.partitions().get(partition.partition()).replicas())
                    .orElse(List.of());
                return new PartitionState(partition.topic(), topicId, partition.partition(), replicas,
                    List.copyOf(p.isr()), p.leaderId(), p.leaderEpoch(), p.partitionEpoch());
            }
        }
        throw Errors.UNKNOWN_SERVER_ERROR.exception("AlterPartition response without " + partition);
    }
}
