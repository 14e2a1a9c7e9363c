package io.syncmirror.tests;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AllocateProducerIdsRequestData;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * For one API and one version, the smallest valid requests kafka-clients' message classes can express, each with
 * what its answer must show beyond being a well-formed response of that version: the data-path APIs address a real
 * partition holding records and check the offsets and records that come back, so that every field a version
 * carries (and every one it does not) is written. Every key kafka-clients knows gets at least its default
 * {@code *RequestData} ({@link ApiKeys#messageType}'s {@code newRequest()}), so no advertised version is left out.
 * Stateless apart from the {@link Fixture} it is given; not thread-safe.
 */
final class MinimalRequests
{
    /** The partition the data-path requests address: {@code records} records, timestamps 1000, 2000, 3000... */
    record Fixture(String topic, Uuid topicId, int records, int brokerId)
    {
    }

    /**
     * One request to send, what its parsed answer must satisfy (assertions), and the errors it is meant to get that
     * would otherwise read as a server fault (INVALID_REQUEST for a request built to be refused).
     */
    record Probe(String what, ApiMessage request, Consumer<AbstractResponse> check, Set<Errors> expectedErrors)
    {
        Probe(final String what, final ApiMessage request, final Consumer<AbstractResponse> check)
        {
            this(what, request, check, Set.of());
        }
    }

    private static final Consumer<AbstractResponse> NO_CHECK = response ->
    {
    };
    private static final String GROUP = "sweep-group";
    private static final String TRANSACTIONAL_ID = "sweep-txn";
    private static final int PARTITION_MAX_BYTES = 1 << 20;

    private MinimalRequests()
    {
    }

    /** The requests for {@code key} v{@code version}; never empty. */
    static List<Probe> of(final ApiKeys key, final short version, final Fixture f)
    {
        final List<Probe> probes = new ArrayList<>();
        switch (key)
        {
            case PRODUCE -> probes.add(new Probe("one record, acks=1", produce(version, f), response -> checkProduce(
                response)));
            case FETCH -> addFetches(probes, version, f);
            case LIST_OFFSETS -> addListOffsets(probes, version, f);
            case METADATA -> addMetadata(probes, version, f);
            case OFFSET_FOR_LEADER_EPOCH -> probes.add(new Probe("epoch 0 of the partition",
                new OffsetForLeaderEpochRequestData().setReplicaId(version >= 3 ? -1 : -2)
                    .setTopics(new OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection(List.of(
                        new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic(f.topic()).setPartitions(
                            List.of(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition().setPartition(0)
                                .setLeaderEpoch(0).setCurrentLeaderEpoch(-1)))).iterator())),
                response -> checkEpochEnd(response)));
            case API_VERSIONS -> probes.add(new Probe("client software named", version >= 3 ?
                new ApiVersionsRequestData().setClientSoftwareName("wire-client").setClientSoftwareVersion("1.0") :
                new ApiVersionsRequestData(), NO_CHECK));
            case CREATE_TOPICS -> probes.add(new Probe("one topic, 1 partition, RF 1", new CreateTopicsRequestData()
                .setTimeoutMs(10_000).setTopics(new CreateTopicsRequestData.CreatableTopicCollection(List.of(
                    new CreateTopicsRequestData.CreatableTopic().setName(createdTopic(version)).setNumPartitions(1)
                        .setReplicationFactor((short)1)).iterator())),
                response -> checkCreated((CreateTopicsResponseData)response.data())));
            case DELETE_TOPICS -> probes.add(new Probe("the topic CreateTopics made at the same version (or 2)",
                deleteTopics(version), response -> checkDeleted((DeleteTopicsResponseData)response.data())));
            case DESCRIBE_CONFIGS ->
            {
                probes.add(new Probe("the topic", describeConfigs(ConfigResource.Type.TOPIC, f.topic(), version),
                    NO_CHECK));
                probes.add(new Probe("the broker", describeConfigs(ConfigResource.Type.BROKER,
                    Integer.toString(f.brokerId()), version), NO_CHECK));
            }
            case INCREMENTAL_ALTER_CONFIGS -> probes.add(new Probe("SET retention.ms on the topic",
                new IncrementalAlterConfigsRequestData().setResources(
                    new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection(List.of(
                        new IncrementalAlterConfigsRequestData.AlterConfigsResource()
                            .setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName(f.topic())
                            .setConfigs(new IncrementalAlterConfigsRequestData.AlterableConfigCollection(List.of(
                                new IncrementalAlterConfigsRequestData.AlterableConfig().setName("retention.ms")
                                    .setConfigOperation((byte)0).setValue("604800000")).iterator()))).iterator())),
                NO_CHECK));
            case DESCRIBE_CLUSTER -> probes.add(new Probe("brokers", new DescribeClusterRequestData(), NO_CHECK));
            case ALTER_CONFIGS -> probes.add(new Probe("validate-only SET retention.ms on the topic",
                new AlterConfigsRequestData().setValidateOnly(true).setResources(
                    new AlterConfigsRequestData.AlterConfigsResourceCollection(List.of(
                        new AlterConfigsRequestData.AlterConfigsResource().setResourceType(ConfigResource.Type.TOPIC.id())
                            .setResourceName(f.topic()).setConfigs(new AlterConfigsRequestData.AlterableConfigCollection(
                                List.of(new AlterConfigsRequestData.AlterableConfig().setName("retention.ms")
                                    .setValue("604800000")).iterator()))).iterator())), NO_CHECK));
            case CREATE_PARTITIONS -> probes.add(new Probe("validate-only growth of the topic by one partition",
                new CreatePartitionsRequestData().setValidateOnly(true).setTimeoutMs(10_000).setTopics(
                    new CreatePartitionsRequestData.CreatePartitionsTopicCollection(List.of(
                        new CreatePartitionsRequestData.CreatePartitionsTopic().setName(f.topic()).setCount(2)
                            .setAssignments(null)).iterator())), NO_CHECK));
            case DELETE_RECORDS -> probes.add(new Probe("records before offset 0 of the partition (none)",
                new DeleteRecordsRequestData().setTimeoutMs(10_000).setTopics(List.of(
                    new DeleteRecordsRequestData.DeleteRecordsTopic().setName(f.topic()).setPartitions(List.of(
                        new DeleteRecordsRequestData.DeleteRecordsPartition().setPartitionIndex(0).setOffset(0L))))),
                NO_CHECK));
            case DESCRIBE_PRODUCERS -> probes.add(new Probe("the producers of the partition",
                new DescribeProducersRequestData().setTopics(new DescribeProducersRequestData.TopicRequestCollection(
                    List.of(new DescribeProducersRequestData.TopicRequest().setName(f.topic())
                        .setPartitionIndexes(List.of(0))).iterator())), NO_CHECK));
            case FIND_COORDINATOR -> probes.add(new Probe("a group", version >= 4 ?
                new FindCoordinatorRequestData().setKeyType((byte)0).setCoordinatorKeys(List.of(GROUP)) :
                new FindCoordinatorRequestData().setKey(GROUP), NO_CHECK));
            case OFFSET_COMMIT -> probes.add(new Probe("a simple (generation -1) commit", offsetCommit(version, f),
                NO_CHECK));
            case OFFSET_FETCH -> probes.add(new Probe("the partition of one group", offsetFetch(version, f),
                NO_CHECK));
            case DESCRIBE_GROUPS -> probes.add(new Probe("one group",
                new DescribeGroupsRequestData().setGroups(List.of(GROUP)), NO_CHECK));
            case LIST_GROUPS -> probes.add(new Probe("all groups", new ListGroupsRequestData(), NO_CHECK));
            case INIT_PRODUCER_ID -> probes.add(new Probe("an idempotent producer", new InitProducerIdRequestData()
                .setTransactionalId(null).setTransactionTimeoutMs(60_000), NO_CHECK));
            case ADD_PARTITIONS_TO_TXN -> probes.add(new Probe("an unknown transaction", addPartitions(version, f),
                NO_CHECK));
            case ADD_OFFSETS_TO_TXN -> probes.add(new Probe("an unknown transaction", new AddOffsetsToTxnRequestData()
                .setTransactionalId(TRANSACTIONAL_ID).setProducerId(1L).setProducerEpoch((short)0).setGroupId(GROUP),
                NO_CHECK));
            case END_TXN -> probes.add(new Probe("an unknown transaction", new EndTxnRequestData()
                .setTransactionalId(TRANSACTIONAL_ID).setProducerId(1L).setProducerEpoch((short)0).setCommitted(true),
                NO_CHECK));
            case TXN_OFFSET_COMMIT -> probes.add(new Probe("an unknown transaction", new TxnOffsetCommitRequestData()
                .setTransactionalId(TRANSACTIONAL_ID).setGroupId(GROUP).setProducerId(1L).setProducerEpoch((short)0)
                .setTopics(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic().setName(f.topic())
                    .setPartitions(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition()
                        .setPartitionIndex(0).setCommittedOffset(1L))))), NO_CHECK));
            case WRITE_TXN_MARKERS -> probes.add(new Probe("no markers",
                new WriteTxnMarkersRequestData().setMarkers(List.of()), NO_CHECK));
            // Broker-to-controller APIs: a broker id and epoch no broker has, so nothing in the cluster changes.
            case BROKER_REGISTRATION -> probes.add(new Probe("an unknown cluster id and no listener",
                new BrokerRegistrationRequestData().setBrokerId(999).setClusterId("no-such-cluster")
                    .setIncarnationId(Uuid.randomUuid()), NO_CHECK,
                Set.of(Errors.INVALID_REQUEST, Errors.INCONSISTENT_CLUSTER_ID)));
            case BROKER_HEARTBEAT -> probes.add(new Probe("an unregistered broker",
                new BrokerHeartbeatRequestData().setBrokerId(999).setBrokerEpoch(-1L).setWantFence(true), NO_CHECK));
            case ALTER_PARTITION -> probes.add(new Probe("an unregistered broker, no topics",
                new AlterPartitionRequestData().setBrokerId(999).setBrokerEpoch(-1L), NO_CHECK));
            case ALLOCATE_PRODUCER_IDS -> probes.add(new Probe("an unregistered broker",
                new AllocateProducerIdsRequestData().setBrokerId(999).setBrokerEpoch(-1L), NO_CHECK));
            // A new member's first heartbeat (KIP-848): the group id and, from v1, the client's own member id.
            case CONSUMER_GROUP_HEARTBEAT -> probes.add(new Probe("a joining member subscribed to the topic",
                new org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData().setGroupId(GROUP + "-848")
                    .setMemberId(Uuid.randomUuid().toString()).setMemberEpoch(0).setRebalanceTimeoutMs(5_000)
                    .setSubscribedTopicNames(List.of(f.topic())).setTopicPartitions(List.of()), NO_CHECK));
            // Every ACL (ANY filters; v0 knows LITERAL patterns only): SECURITY_DISABLED without an authorizer.
            case DESCRIBE_ACLS -> probes.add(new Probe("every ACL", new DescribeAclsRequestData()
                .setResourceTypeFilter(ResourceType.ANY.code()).setPatternTypeFilter(version == 0 ?
                    PatternType.LITERAL.code() : PatternType.ANY.code()).setOperation(AclOperation.ANY.code())
                .setPermissionType(AclPermissionType.ANY.code()), NO_CHECK));
            default -> probes.add(new Probe("the default request data", key.messageType.newRequest(), NO_CHECK));
        }
        return probes;
    }

    /** The records of the fixture partition: {@code count} records with timestamps 1000, 2000... */
    static MemoryRecords records(final int count, final long firstTimestampMs)
    {
        final SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++)
        {
            records[i] = new SimpleRecord(firstTimestampMs + 1000L * i, ("k" + i).getBytes(),
                ("v" + i).getBytes());
        }
        return MemoryRecords.withRecords(Compression.NONE, records);
    }

    /** The topic CreateTopics v{@code version} creates and DeleteTopics v{@code version} deletes. */
    static String createdTopic(final short version)
    {
        return "sweep-created-v" + Math.max(2, version);
    }

    static ProduceRequestData produce(final short version, final Fixture f)
    {
        final ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData()
            .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData().setIndex(0)
                .setRecords(records(1, System.currentTimeMillis()))));
        if (version >= 13)
        {
            topic.setTopicId(f.topicId());
        }
        else
        {
            topic.setName(f.topic());
        }
        return new ProduceRequestData().setAcks((short)1).setTimeoutMs(10_000)
            .setTopicData(new ProduceRequestData.TopicProduceDataCollection(List.of(topic).iterator()));
    }

    private static void checkProduce(final AbstractResponse response)
    {
        final ProduceResponseData.PartitionProduceResponse partition =
            ((ProduceResponseData)response.data()).responses().iterator().next().partitionResponses().get(0);
        assertEquals(Errors.NONE.code(), partition.errorCode(), "produce error " + partition.errorMessage());
        assertTrue(partition.baseOffset() >= 0, "base offset " + partition.baseOffset());
    }

    static FetchRequestData fetch(final short version, final Fixture f, final int sessionEpoch,
        final IsolationLevel isolation, final int currentLeaderEpoch)
    {
        final FetchRequestData.FetchTopic topic = new FetchRequestData.FetchTopic().setPartitions(List.of(
            new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0L).setLogStartOffset(-1L)
                .setPartitionMaxBytes(PARTITION_MAX_BYTES).setCurrentLeaderEpoch(currentLeaderEpoch)));
        if (version >= 13)
        {
            topic.setTopicId(f.topicId());
        }
        else
        {
            topic.setTopic(f.topic());
        }
        return new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(0)
            .setMaxBytes(PARTITION_MAX_BYTES).setIsolationLevel(isolation.id()).setSessionId(0)
            .setSessionEpoch(sessionEpoch).setTopics(List.of(topic));
    }

    private static void addFetches(final List<Probe> probes, final short version, final Fixture f)
    {
        probes.add(new Probe("sessionless, read uncommitted", fetch(version, f, -1, IsolationLevel.READ_UNCOMMITTED,
            -1), response -> checkFetched(response, f)));
        probes.add(new Probe("sessionless, read committed", fetch(version, f, -1, IsolationLevel.READ_COMMITTED, -1),
            response -> checkFetched(response, f)));
        if (version >= 7)
        {
            probes.add(new Probe("a new incremental session (epoch 0)", fetch(version, f, 0,
                IsolationLevel.READ_UNCOMMITTED, -1), response -> checkFetched(response, f)));
        }
        if (version >= 9)
        {
            // A leader epoch from the future: a partition error, which carries CurrentLeader only where the
            // version has it (12+).
            probes.add(new Probe("a current leader epoch ahead of the leader's", fetch(version, f, -1,
                IsolationLevel.READ_UNCOMMITTED, 1000), response -> assertEquals(Errors.UNKNOWN_LEADER_EPOCH.code(),
                    fetchedPartition(response).errorCode())));
        }
    }

    static void checkFetched(final AbstractResponse response, final Fixture f)
    {
        final FetchResponseData data = (FetchResponseData)response.data();
        assertEquals(Errors.NONE.code(), data.errorCode(), "fetch error");
        final FetchResponseData.PartitionData partition = fetchedPartition(response);
        assertEquals(Errors.NONE.code(), partition.errorCode(), "partition error");
        assertTrue(partition.highWatermark() >= f.records(), "high watermark " + partition.highWatermark());
        assertTrue(partition.records() != null && partition.records().sizeInBytes() > 0, "no records");
        assertEquals(0L, ((org.apache.kafka.common.record.internal.Records)partition.records()).batches().iterator()
            .next().baseOffset());
    }

    private static FetchResponseData.PartitionData fetchedPartition(final AbstractResponse response)
    {
        final FetchResponseData data = (FetchResponseData)response.data();
        assertEquals(1, data.responses().size(), "topics in the fetch response");
        return data.responses().get(0).partitions().get(0);
    }

    private static void addListOffsets(final List<Probe> probes, final short version, final Fixture f)
    {
        probes.add(listOffsets(version, f, ListOffsetsRequest.LATEST_TIMESTAMP, IsolationLevel.READ_UNCOMMITTED,
            "latest", offset -> assertTrue(offset >= f.records(), "latest offset " + offset)));
        probes.add(listOffsets(version, f, ListOffsetsRequest.EARLIEST_TIMESTAMP, IsolationLevel.READ_UNCOMMITTED,
            "earliest", offset -> assertEquals(0L, offset)));
        probes.add(listOffsets(version, f, 2000L, IsolationLevel.READ_UNCOMMITTED, "by timestamp 2000",
            offset -> assertEquals(1L, offset)));
        if (version >= 2)
        {
            probes.add(listOffsets(version, f, ListOffsetsRequest.LATEST_TIMESTAMP, IsolationLevel.READ_COMMITTED,
                "latest, read committed", offset -> assertTrue(offset >= f.records(), "latest offset " + offset)));
        }
        if (version >= 7)
        {
            probes.add(listOffsets(version, f, ListOffsetsRequest.MAX_TIMESTAMP, IsolationLevel.READ_UNCOMMITTED,
                "max timestamp", offset -> assertTrue(offset >= 0, "max timestamp offset " + offset)));
        }
        if (version >= 8)
        {
            probes.add(listOffsets(version, f, ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP,
                IsolationLevel.READ_UNCOMMITTED, "earliest local", offset -> assertEquals(0L, offset)));
        }
    }

    private static Probe listOffsets(final short version, final Fixture f, final long timestamp,
        final IsolationLevel isolation, final String what, final Consumer<Long> checkOffset)
    {
        final ListOffsetsRequestData data = new ListOffsetsRequestData().setReplicaId(-1)
            .setIsolationLevel(isolation.id()).setTopics(List.of(new ListOffsetsRequestData.ListOffsetsTopic()
                .setName(f.topic()).setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                    .setPartitionIndex(0).setTimestamp(timestamp).setCurrentLeaderEpoch(-1)))));
        return new Probe(what, data, response ->
        {
            final ListOffsetsResponseData.ListOffsetsPartitionResponse partition =
                ((ListOffsetsResponseData)response.data()).topics().get(0).partitions().get(0);
            assertEquals(Errors.NONE.code(), partition.errorCode(), "partition error");
            checkOffset.accept(partition.offset());
        });
    }

    private static void addMetadata(final List<Probe> probes, final short version, final Fixture f)
    {
        probes.add(new Probe("the topic by name", new MetadataRequestData().setTopics(List.of(
            new MetadataRequestData.MetadataRequestTopic().setName(f.topic()))), response ->
        {
            final MetadataResponseData data = (MetadataResponseData)response.data();
            final MetadataResponseData.MetadataResponseTopic topic = data.topics().find(f.topic());
            assertEquals(Errors.NONE.code(), topic.errorCode(), "topic error");
            assertEquals(1, topic.partitions().size());
            assertEquals(f.brokerId(), topic.partitions().get(0).leaderId());
            assertTrue(data.brokers().find(f.brokerId()) != null, "the broker is listed");
        }));
        if (version >= 1)
        {
            probes.add(new Probe("every topic (null)", new MetadataRequestData().setTopics(null), response ->
                assertTrue(((MetadataResponseData)response.data()).topics().find(f.topic()) != null,
                    "the topic is listed")));
        }
    }

    private static void checkEpochEnd(final AbstractResponse response)
    {
        final OffsetForLeaderEpochResponseData.EpochEndOffset partition =
            ((OffsetForLeaderEpochResponseData)response.data()).topics().iterator().next().partitions().get(0);
        assertEquals(Errors.NONE.code(), partition.errorCode(), "partition error");
        assertTrue(partition.endOffset() > 0, "end offset " + partition.endOffset());
    }

    private static void checkCreated(final CreateTopicsResponseData data)
    {
        final CreateTopicsResponseData.CreatableTopicResult result = data.topics().iterator().next();
        assertEquals(Errors.NONE.code(), result.errorCode(), "create error " + result.errorMessage());
    }

    private static DeleteTopicsRequestData deleteTopics(final short version)
    {
        final DeleteTopicsRequestData data = new DeleteTopicsRequestData().setTimeoutMs(10_000);
        return version >= 6 ?
            data.setTopics(List.of(new DeleteTopicsRequestData.DeleteTopicState().setName(createdTopic(version)))) :
            data.setTopicNames(List.of(createdTopic(version)));
    }

    private static void checkDeleted(final DeleteTopicsResponseData data)
    {
        final DeleteTopicsResponseData.DeletableTopicResult result = data.responses().iterator().next();
        // DeleteTopics v1 has no CreateTopics v1 to pair with: it deletes v2's topic, which v2 then finds gone.
        assertTrue(result.errorCode() == Errors.NONE.code() ||
            result.errorCode() == Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), "delete error " + result.errorCode());
    }

    private static DescribeConfigsRequestData describeConfigs(final ConfigResource.Type type, final String name,
        final short version)
    {
        return new DescribeConfigsRequestData().setIncludeSynonyms(version >= 1)
            .setIncludeDocumentation(version >= 3).setResources(List.of(
                new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType(type.id())
                    .setResourceName(name).setConfigurationKeys(null)));
    }

    private static OffsetCommitRequestData offsetCommit(final short version, final Fixture f)
    {
        final OffsetCommitRequestData.OffsetCommitRequestTopic topic = new OffsetCommitRequestData
            .OffsetCommitRequestTopic().setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                .setPartitionIndex(0).setCommittedOffset(1L).setCommittedMetadata("")));
        if (version >= 10)
        {
            topic.setTopicId(f.topicId());
        }
        else
        {
            topic.setName(f.topic());
        }
        return new OffsetCommitRequestData().setGroupId(GROUP).setGenerationIdOrMemberEpoch(-1).setMemberId("")
            .setTopics(List.of(topic));
    }

    private static OffsetFetchRequestData offsetFetch(final short version, final Fixture f)
    {
        if (version < 8)
        {
            return new OffsetFetchRequestData().setGroupId(GROUP).setTopics(List.of(
                new OffsetFetchRequestData.OffsetFetchRequestTopic().setName(f.topic())
                    .setPartitionIndexes(Arrays.asList(0))));
        }
        final OffsetFetchRequestData.OffsetFetchRequestTopics topic = new OffsetFetchRequestData
            .OffsetFetchRequestTopics().setPartitionIndexes(Arrays.asList(0));
        if (version >= 10)
        {
            topic.setTopicId(f.topicId());
        }
        else
        {
            topic.setName(f.topic());
        }
        return new OffsetFetchRequestData().setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup()
            .setGroupId(GROUP).setTopics(List.of(topic))));
    }

    private static AddPartitionsToTxnRequestData addPartitions(final short version, final Fixture f)
    {
        final AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection topics =
            new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection(List.of(
                new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic().setName(f.topic())
                    .setPartitions(Arrays.asList(0))).iterator());
        if (version <= 3)
        {
            return new AddPartitionsToTxnRequestData().setV3AndBelowTransactionalId(TRANSACTIONAL_ID)
                .setV3AndBelowProducerId(1L).setV3AndBelowProducerEpoch((short)0).setV3AndBelowTopics(topics);
        }
        return new AddPartitionsToTxnRequestData().setTransactions(
            new AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection(List.of(
                new AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction().setTransactionalId(TRANSACTIONAL_ID)
                    .setProducerId(1L).setProducerEpoch((short)0).setVerifyOnly(true).setTopics(topics)).iterator()));
    }
}
