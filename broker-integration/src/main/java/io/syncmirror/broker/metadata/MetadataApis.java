package io.syncmirror.broker.metadata;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterConfigsRequest;
import org.apache.kafka.common.requests.AlterConfigsResponse;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreatePartitionsResponse;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.server.config.ConfigSynonym;
import org.apache.kafka.server.config.ServerTopicConfigSynonyms;
import org.apache.kafka.storage.internals.log.LogConfig;

import io.syncmirror.broker.network.NodeClient;
import io.syncmirror.broker.network.RequestContext;
import io.syncmirror.broker.network.RequestHandler;

/**
 * The broker's metadata and admin APIs: Metadata, DescribeCluster, DescribeConfigs, and CreateTopics,
 * DeleteTopics, IncrementalAlterConfigs forwarded to the controller. Thread-safe: answers come from the
 * immutable image current at the call; forwarded requests complete on the controller client's or the metadata
 * thread, never blocking the caller.
 *
 * <p>A forwarded change is answered only after this broker's image shows it (or after the wait bound), so a
 * client's next Metadata here sees its new topic. Metadata and DescribeCluster name this broker as the controller,
 * as Kafka's KRaft brokers name a live broker: clients send admin requests to it and it forwards them.
 */
public final class MetadataApis implements RequestHandler
{
    public static final String AUTO_CREATE_TOPICS_ENABLE_CONFIG = "auto.create.topics.enable";
    public static final boolean AUTO_CREATE_TOPICS_ENABLE_DEFAULT = true;

    /** Upper bound on waiting for this broker's image to show a forwarded change. */
    static final long MAX_APPLY_WAIT_MS = 10_000;
    /** How long an auto-creating Metadata request waits for the new topic before answering LEADER_NOT_AVAILABLE. */
    static final long AUTO_CREATE_WAIT_MS = 3_000;

    private static final Set<ApiKeys> APIS = EnumSet.of(ApiKeys.METADATA, ApiKeys.DESCRIBE_CLUSTER,
        ApiKeys.DESCRIBE_CONFIGS, ApiKeys.CREATE_TOPICS, ApiKeys.DELETE_TOPICS, ApiKeys.INCREMENTAL_ALTER_CONFIGS,
        ApiKeys.CREATE_PARTITIONS, ApiKeys.ALTER_CONFIGS);

    private final int brokerId;
    private final String clusterId;
    private final BrokerMetadataApplier metadata;
    private final NodeClient controller;
    private final Map<String, String> brokerConfig;
    private final boolean autoCreateTopics;

    /**
     * @param metadata     this broker's applier (its current image, and waits for later ones)
     * @param controller   a client to the controller (its in-process client on the controller node)
     * @param brokerConfig this broker's server.properties, as shown by DescribeConfigs and as defaults for topics
     */
    public MetadataApis(final int brokerId, final String clusterId, final BrokerMetadataApplier metadata,
        final NodeClient controller, final Map<String, String> brokerConfig)
    {
        this.brokerId = brokerId;
        this.clusterId = clusterId;
        this.metadata = metadata;
        this.controller = controller;
        this.brokerConfig = Map.copyOf(brokerConfig);
        this.autoCreateTopics = Boolean.parseBoolean(brokerConfig.getOrDefault(AUTO_CREATE_TOPICS_ENABLE_CONFIG,
            String.valueOf(AUTO_CREATE_TOPICS_ENABLE_DEFAULT)).trim());
    }

    @Override
    public short maxVersion(final ApiKeys key)
    {
        return APIS.contains(key) ? key.latestVersion() : -1;
    }

    @Override
    public short minVersion(final ApiKeys key)
    {
        return key.oldestVersion();
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(final RequestContext context, final AbstractRequest request)
    {
        try
        {
            switch (request.apiKey())
            {
                case METADATA:
                    return metadata(context.listenerName(), (MetadataRequest) request);
                case DESCRIBE_CLUSTER:
                    return CompletableFuture.completedFuture(describeCluster(context.listenerName(),
                        (DescribeClusterRequest) request));
                case DESCRIBE_CONFIGS:
                    return CompletableFuture.completedFuture(describeConfigs((DescribeConfigsRequest) request));
                case CREATE_TOPICS:
                    return createTopics((CreateTopicsRequest) request);
                case DELETE_TOPICS:
                    return deleteTopics((DeleteTopicsRequest) request);
                case CREATE_PARTITIONS:
                    return createPartitions((CreatePartitionsRequest) request);
                case ALTER_CONFIGS:
                    return alterConfigs((AlterConfigsRequest) request);
                case INCREMENTAL_ALTER_CONFIGS:
                    return incrementalAlterConfigs((IncrementalAlterConfigsRequest) request);
                default:
                    return CompletableFuture.failedFuture(new InvalidRequestException(
                        "not a metadata API: " + request.apiKey()));
            }
        }
        catch (final RuntimeException e)
        {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Creates a topic through the controller unless this broker's image has it, and completes with the topic once
     * the image shows it (or exceptionally with the controller's error, e.g. INVALID_REPLICATION_FACTOR). For
     * internal topics (consumer offsets, transaction state), which Metadata never auto-creates.
     */
    public CompletableFuture<TopicMetadata> ensureTopic(final String topic, final int partitions,
        final short replicationFactor, final Map<String, String> config)
    {
        final Optional<TopicMetadata> existing = metadata.image().topic(topic);
        if (existing.isPresent())
        {
            return CompletableFuture.completedFuture(existing.get());
        }
        final CreateTopicsRequestData.CreatableTopicConfigCollection configs =
            new CreateTopicsRequestData.CreatableTopicConfigCollection();
        config.forEach((k, v) -> configs.add(new CreateTopicsRequestData.CreatableTopicConfig().setName(k)
            .setValue(v)));
        final CreateTopicsRequestData.CreatableTopicCollection topics =
            new CreateTopicsRequestData.CreatableTopicCollection();
        topics.add(new CreateTopicsRequestData.CreatableTopic().setName(topic).setNumPartitions(partitions)
            .setReplicationFactor(replicationFactor).setConfigs(configs));
        return controller.<CreateTopicsResponse>send(new CreateTopicsRequest.Builder(new CreateTopicsRequestData()
            .setTopics(topics).setTimeoutMs((int) MAX_APPLY_WAIT_MS)))
            .thenCompose(response ->
            {
                final CreateTopicsResponseData.CreatableTopicResult result = response.data().topics().find(topic);
                final Errors error = result == null ? Errors.UNKNOWN_SERVER_ERROR : Errors.forCode(result.errorCode());
                if (error != Errors.NONE && error != Errors.TOPIC_ALREADY_EXISTS)
                {
                    return CompletableFuture.failedFuture(error.exception(result == null ? null
                        : result.errorMessage()));
                }
                return metadata.await(img -> img.topic(topic).isPresent())
                    .orTimeout(MAX_APPLY_WAIT_MS, TimeUnit.MILLISECONDS)
                    .thenApply(img -> img.topic(topic).orElseThrow());
            });
    }

    // ----------------------------------------------------------------------------------------------- Metadata

    private CompletableFuture<AbstractResponse> metadata(final String listenerName, final MetadataRequest request)
    {
        final MetadataRequestData data = request.data();
        final short version = request.version();
        final MetadataImage image = metadata.image();
        final boolean allowAutoCreate = autoCreateTopics && (version < 4 || data.allowAutoTopicCreation());
        final boolean allTopics = request.isAllTopics();
        final Set<String> toCreate = new LinkedHashSet<>();
        if (!allTopics)
        {
            for (final MetadataRequestData.MetadataRequestTopic t : data.topics())
            {
                if (t.name() != null && image.topic(t.name()).isEmpty() && allowAutoCreate && Topic.isValid(t.name())
                    && !Topic.isInternal(t.name()))
                {
                    toCreate.add(t.name());
                }
            }
        }
        if (toCreate.isEmpty())
        {
            return CompletableFuture.completedFuture(metadataResponse(listenerName, data, allTopics, version, image,
                Map.of()));
        }
        final CreateTopicsRequestData.CreatableTopicCollection topics =
            new CreateTopicsRequestData.CreatableTopicCollection();
        for (final String name : toCreate)
        {
            topics.add(new CreateTopicsRequestData.CreatableTopic().setName(name).setNumPartitions(-1)
                .setReplicationFactor((short) -1));
        }
        final CreateTopicsRequestData create = new CreateTopicsRequestData().setTopics(topics)
            .setTimeoutMs((int) AUTO_CREATE_WAIT_MS);
        return controller.<CreateTopicsResponse>send(new CreateTopicsRequest.Builder(create))
            .thenCompose(response ->
            {
                final Map<String, Errors> createErrors = new TreeMap<>();
                for (final CreateTopicsResponseData.CreatableTopicResult r : response.data().topics())
                {
                    final Errors error = Errors.forCode(r.errorCode());
                    if (error != Errors.NONE && error != Errors.TOPIC_ALREADY_EXISTS)
                    {
                        createErrors.put(r.name(), error);
                    }
                }
                return awaitImage(img -> toCreate.stream().allMatch(n -> createErrors.containsKey(n)
                    || img.topic(n).isPresent()), AUTO_CREATE_WAIT_MS)
                    .thenApply(img -> (AbstractResponse) metadataResponse(listenerName, data, allTopics, version, img,
                        createErrors));
            })
            .exceptionally(error -> metadataResponse(listenerName, data, allTopics, version, metadata.image(),
                Map.of()));
    }

    private MetadataResponse metadataResponse(final String listenerName, final MetadataRequestData data,
        final boolean allTopics,
        final short version,
        final MetadataImage image, final Map<String, Errors> createErrors)
    {
        final MetadataResponseData response = new MetadataResponseData()
            .setClusterId(clusterId)
            .setControllerId(brokerId);
        final MetadataResponseData.MetadataResponseBrokerCollection brokers =
            new MetadataResponseData.MetadataResponseBrokerCollection();
        // Each broker at the listener the request came in on, as Kafka answers; one without it is left out.
        for (final BrokerEndpoint live : image.liveBrokers())
        {
            live.at(listenerName).ifPresent(b -> brokers.add(new MetadataResponseData.MetadataResponseBroker()
                .setNodeId(b.id()).setHost(b.host()).setPort(b.port()).setRack(b.rack())));
        }
        response.setBrokers(brokers);
        final MetadataResponseData.MetadataResponseTopicCollection topics =
            new MetadataResponseData.MetadataResponseTopicCollection();
        if (allTopics)
        {
            for (final TopicMetadata t : image.topics())
            {
                topics.add(topicResponse(t, image, version));
            }
        }
        else
        {
            for (final MetadataRequestData.MetadataRequestTopic requested : data.topics())
            {
                final Optional<TopicMetadata> found = requested.name() != null ? image.topic(requested.name())
                    : image.topic(requested.topicId());
                if (found.isPresent())
                {
                    topics.add(topicResponse(found.get(), image, version));
                    continue;
                }
                final MetadataResponseData.MetadataResponseTopic missing =
                    new MetadataResponseData.MetadataResponseTopic().setName(requested.name())
                        .setTopicId(Uuid.ZERO_UUID).setPartitions(new ArrayList<>());
                if (requested.name() == null)
                {
                    missing.setErrorCode(Errors.UNKNOWN_TOPIC_ID.code());
                }
                else if (!Topic.isValid(requested.name()))
                {
                    missing.setErrorCode(Errors.INVALID_TOPIC_EXCEPTION.code());
                }
                else if (createErrors.containsKey(requested.name()))
                {
                    missing.setErrorCode(createErrors.get(requested.name()).code());
                }
                else if (autoCreateTopics && (version < 4 || data.allowAutoTopicCreation())
                    && !Topic.isInternal(requested.name()))
                {
                    // Being created: the client retries, as with Kafka.
                    missing.setErrorCode(Errors.LEADER_NOT_AVAILABLE.code());
                }
                else
                {
                    missing.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                }
                // A name asked twice is answered once; missing ids have no name and are each answered.
                if (missing.name() == null || topics.find(missing.name()) == null)
                {
                    topics.add(missing);
                }
            }
        }
        response.setTopics(topics);
        return new MetadataResponse(response, version);
    }

    private static MetadataResponseData.MetadataResponseTopic topicResponse(final TopicMetadata t,
        final MetadataImage image, final short version)
    {
        final List<MetadataResponseData.MetadataResponsePartition> partitions = new ArrayList<>();
        for (final PartitionState s : t.partitions())
        {
            if (s == null)
            {
                continue;
            }
            final List<Integer> offline = new ArrayList<>();
            for (final int replica : s.replicas())
            {
                final Optional<MetadataImage.Broker> b = image.registration(replica);
                if (b.isEmpty() || b.get().fenced())
                {
                    offline.add(replica);
                }
            }
            partitions.add(new MetadataResponseData.MetadataResponsePartition()
                .setPartitionIndex(s.partition())
                .setErrorCode(s.leader() == -1 ? Errors.LEADER_NOT_AVAILABLE.code() : Errors.NONE.code())
                .setLeaderId(s.leader())
                .setLeaderEpoch(s.leaderEpoch())
                .setReplicaNodes(new ArrayList<>(s.replicas()))
                .setIsrNodes(new ArrayList<>(s.isr()))
                .setOfflineReplicas(offline));
        }
        return new MetadataResponseData.MetadataResponseTopic()
            .setName(t.name())
            .setTopicId(t.id())
            .setIsInternal(Topic.isInternal(t.name()))
            .setErrorCode(Errors.NONE.code())
            .setPartitions(partitions);
    }

    // ----------------------------------------------------------------------------------------- DescribeCluster

    private AbstractResponse describeCluster(final String listenerName, final DescribeClusterRequest request)
    {
        final DescribeClusterResponse refused = EndpointTypeCheck.refusal(request,
            org.apache.kafka.clients.admin.EndpointType.BROKER);
        if (refused != null)
        {
            return refused;
        }
        final MetadataImage image = metadata.image();
        final boolean includeFenced = request.version() >= 2 && request.data().includeFencedBrokers();
        final DescribeClusterResponseData.DescribeClusterBrokerCollection brokers =
            new DescribeClusterResponseData.DescribeClusterBrokerCollection();
        for (final MetadataImage.Broker b : image.registeredBrokers())
        {
            final Optional<BrokerEndpoint> at = b.endpoint().at(listenerName);
            if (b.fenced() && !includeFenced || at.isEmpty())
            {
                continue;
            }
            final DescribeClusterResponseData.DescribeClusterBroker broker =
                new DescribeClusterResponseData.DescribeClusterBroker().setBrokerId(at.get().id())
                    .setHost(at.get().host()).setPort(at.get().port()).setRack(at.get().rack());
            if (request.version() >= 2)
            {
                broker.setIsFenced(b.fenced());
            }
            brokers.add(broker);
        }
        return new DescribeClusterResponse(new DescribeClusterResponseData().setClusterId(clusterId)
            .setControllerId(brokerId).setBrokers(brokers));
    }

    // ----------------------------------------------------------------------------------------- DescribeConfigs

    private AbstractResponse describeConfigs(final DescribeConfigsRequest request)
    {
        final DescribeConfigsRequestData data = request.data();
        final MetadataImage image = metadata.image();
        final DescribeConfigsResponseData response = new DescribeConfigsResponseData();
        for (final DescribeConfigsRequestData.DescribeConfigsResource resource : data.resources())
        {
            final DescribeConfigsResponseData.DescribeConfigsResult result =
                new DescribeConfigsResponseData.DescribeConfigsResult().setResourceType(resource.resourceType())
                    .setResourceName(resource.resourceName()).setConfigs(new ArrayList<>());
            response.results().add(result);
            if (resource.resourceType() == ConfigResource.Type.TOPIC.id())
            {
                final Optional<TopicMetadata> topic = image.topic(resource.resourceName());
                if (topic.isEmpty())
                {
                    result.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                        .setErrorMessage("Topic " + resource.resourceName() + " does not exist.");
                    continue;
                }
                for (final String key : LogConfig.nonInternalConfigNames().stream().sorted().toList())
                {
                    if (wanted(resource, key))
                    {
                        result.configs().add(topicEntry(key, topic.get().config(), data, request.version()));
                    }
                }
                final String mirrorName = topic.get().config().get(MirrorDefinition.MIRROR_NAME_CONFIG);
                if (mirrorName != null && wanted(resource, MirrorDefinition.MIRROR_NAME_CONFIG))
                {
                    result.configs().add(mirrorNameEntry(mirrorName, data, request.version()));
                }
            }
            else if (resource.resourceType() == ConfigResource.Type.BROKER.id())
            {
                if (!resource.resourceName().isEmpty() && !resource.resourceName().equals(String.valueOf(brokerId)))
                {
                    result.setErrorCode(Errors.INVALID_REQUEST.code())
                        .setErrorMessage("this is broker " + brokerId + "; ask broker " + resource.resourceName());
                    continue;
                }
                for (final Map.Entry<String, String> e : new TreeMap<>(brokerConfig).entrySet())
                {
                    if (!wanted(resource, e.getKey()))
                    {
                        continue;
                    }
                    final boolean sensitive = e.getKey().contains("password") || e.getKey().contains("secret");
                    final DescribeConfigsResponseData.DescribeConfigsResourceResult entry =
                        new DescribeConfigsResponseData.DescribeConfigsResourceResult().setName(e.getKey())
                            .setValue(sensitive ? null : e.getValue()).setReadOnly(true).setIsSensitive(sensitive)
                            .setConfigSource(DescribeConfigsResponse.ConfigSource.STATIC_BROKER_CONFIG.id())
                            .setSynonyms(new ArrayList<>());
                    if (data.includeSynonyms())
                    {
                        entry.synonyms().add(new DescribeConfigsResponseData.DescribeConfigsSynonym()
                            .setName(e.getKey()).setValue(entry.value())
                            .setSource(DescribeConfigsResponse.ConfigSource.STATIC_BROKER_CONFIG.id()));
                    }
                    result.configs().add(entry);
                }
            }
            else
            {
                result.setErrorCode(Errors.INVALID_REQUEST.code())
                    .setErrorMessage("unsupported resource type " + resource.resourceType());
            }
        }
        return new DescribeConfigsResponse(response);
    }

    /** Null or empty keys mean every key, as Kafka's Admin sends them. */
    private static boolean wanted(final DescribeConfigsRequestData.DescribeConfigsResource resource, final String key)
    {
        final List<String> keys = resource.configurationKeys();
        return keys == null || keys.isEmpty() || keys.contains(key);
    }

    private DescribeConfigsResponseData.DescribeConfigsResourceResult topicEntry(final String key,
        final Map<String, String> overrides, final DescribeConfigsRequestData data, final short version)
    {
        final ConfigDef.ConfigKey configKey = LogConfig.configKeys().get(key);
        final List<DescribeConfigsResponseData.DescribeConfigsSynonym> synonyms = new ArrayList<>();
        String value = null;
        byte source = -1;
        if (overrides.containsKey(key))
        {
            value = overrides.get(key);
            source = DescribeConfigsResponse.ConfigSource.TOPIC_CONFIG.id();
            synonyms.add(new DescribeConfigsResponseData.DescribeConfigsSynonym().setName(key).setValue(value)
                .setSource(source));
        }
        for (final ConfigSynonym synonym : ServerTopicConfigSynonyms.ALL_TOPIC_CONFIG_SYNONYMS.getOrDefault(key,
            List.of()))
        {
            final String raw = brokerConfig.get(synonym.name());
            if (raw == null)
            {
                continue;
            }
            final String converted = synonym.converter().apply(raw.trim());
            synonyms.add(new DescribeConfigsResponseData.DescribeConfigsSynonym().setName(synonym.name())
                .setValue(raw.trim()).setSource(DescribeConfigsResponse.ConfigSource.STATIC_BROKER_CONFIG.id()));
            if (value == null)
            {
                value = converted;
                source = DescribeConfigsResponse.ConfigSource.STATIC_BROKER_CONFIG.id();
            }
        }
        final String defaultValue = configKey != null && configKey.hasDefault() && configKey.defaultValue != null
            ? ConfigDef.convertToString(configKey.defaultValue, configKey.type) : null;
        synonyms.add(new DescribeConfigsResponseData.DescribeConfigsSynonym().setName(key).setValue(defaultValue)
            .setSource(DescribeConfigsResponse.ConfigSource.DEFAULT_CONFIG.id()));
        if (source == -1)
        {
            value = defaultValue;
            source = DescribeConfigsResponse.ConfigSource.DEFAULT_CONFIG.id();
        }
        final DescribeConfigsResponseData.DescribeConfigsResourceResult entry =
            new DescribeConfigsResponseData.DescribeConfigsResourceResult().setName(key).setValue(value)
                .setReadOnly(false).setIsSensitive(false).setConfigSource(source)
                .setSynonyms(data.includeSynonyms() ? synonyms : new ArrayList<>());
        if (version >= 3 && configKey != null)
        {
            entry.setConfigType(configType(configKey.type));
            if (data.includeDocumentation())
            {
                entry.setDocumentation(configKey.documentation);
            }
        }
        return entry;
    }

    /** {@code mirror.name}: a topic config only the controller's mirror operations write, so read-only here. */
    private static DescribeConfigsResponseData.DescribeConfigsResourceResult mirrorNameEntry(final String value,
        final DescribeConfigsRequestData data, final short version)
    {
        final byte source = DescribeConfigsResponse.ConfigSource.TOPIC_CONFIG.id();
        final List<DescribeConfigsResponseData.DescribeConfigsSynonym> synonyms = new ArrayList<>();
        if (data.includeSynonyms())
        {
            synonyms.add(new DescribeConfigsResponseData.DescribeConfigsSynonym()
                .setName(MirrorDefinition.MIRROR_NAME_CONFIG).setValue(value).setSource(source));
        }
        final DescribeConfigsResponseData.DescribeConfigsResourceResult entry =
            new DescribeConfigsResponseData.DescribeConfigsResourceResult()
                .setName(MirrorDefinition.MIRROR_NAME_CONFIG).setValue(value).setReadOnly(true)
                .setIsSensitive(false).setConfigSource(source).setSynonyms(synonyms);
        if (version >= 3)
        {
            entry.setConfigType(DescribeConfigsResponse.ConfigType.STRING.id());
            if (data.includeDocumentation())
            {
                entry.setDocumentation("The cluster mirror this topic belongs to (M), or M.removed after the topic "
                    + "was removed from it; set by the mirror APIs only.");
            }
        }
        return entry;
    }

    private static byte configType(final ConfigDef.Type type)
    {
        switch (type)
        {
            case BOOLEAN:
                return DescribeConfigsResponse.ConfigType.BOOLEAN.id();
            case STRING:
                return DescribeConfigsResponse.ConfigType.STRING.id();
            case INT:
                return DescribeConfigsResponse.ConfigType.INT.id();
            case SHORT:
                return DescribeConfigsResponse.ConfigType.SHORT.id();
            case LONG:
                return DescribeConfigsResponse.ConfigType.LONG.id();
            case DOUBLE:
                return DescribeConfigsResponse.ConfigType.DOUBLE.id();
            case LIST:
                return DescribeConfigsResponse.ConfigType.LIST.id();
            case CLASS:
                return DescribeConfigsResponse.ConfigType.CLASS.id();
            case PASSWORD:
                return DescribeConfigsResponse.ConfigType.PASSWORD.id();
            default:
                return DescribeConfigsResponse.ConfigType.UNKNOWN.id();
        }
    }

    // ---------------------------------------------------------------------------------------------- forwarding

    private CompletableFuture<AbstractResponse> createTopics(final CreateTopicsRequest request)
    {
        final short version = request.version();
        final boolean validateOnly = request.data().validateOnly();
        return controller.<CreateTopicsResponse>send(new CreateTopicsRequest.Builder(request.data()))
            .thenCompose(response ->
            {
                final CreateTopicsResponseData data = response.data();
                final Map<String, Uuid> created = new TreeMap<>();
                for (final CreateTopicsResponseData.CreatableTopicResult r : data.topics())
                {
                    if (r.errorCode() == Errors.NONE.code() && !validateOnly)
                    {
                        created.put(r.name(), r.topicId());
                    }
                    if (version < 7)
                    {
                        r.setTopicId(Uuid.ZERO_UUID);
                    }
                }
                return awaitImage(img -> created.entrySet().stream().allMatch(e ->
                    img.topic(e.getKey()).map(t -> t.id().equals(e.getValue())).orElse(false)),
                    waitMs(request.data().timeoutMs()))
                    .thenApply(img -> (AbstractResponse) new CreateTopicsResponse(data));
            });
    }

    /** Forwards CreatePartitions; answers once this broker's image shows every topic's new partition count. */
    private CompletableFuture<AbstractResponse> createPartitions(final CreatePartitionsRequest request)
    {
        final CreatePartitionsRequestData asked = request.data();
        return controller.<CreatePartitionsResponse>send(new CreatePartitionsRequest.Builder(asked))
            .thenCompose(response ->
            {
                final CreatePartitionsResponseData data = response.data();
                final Map<String, Integer> grown = new TreeMap<>();
                for (final CreatePartitionsResponseData.CreatePartitionsTopicResult r : data.results())
                {
                    final CreatePartitionsRequestData.CreatePartitionsTopic topic = asked.topics().find(r.name());
                    if (r.errorCode() == Errors.NONE.code() && !asked.validateOnly() && topic != null)
                    {
                        grown.put(r.name(), topic.count());
                    }
                }
                return awaitImage(img -> grown.entrySet().stream().allMatch(e ->
                    img.topic(e.getKey()).map(t -> t.partitions().size() >= e.getValue()).orElse(false)),
                    waitMs(asked.timeoutMs()))
                    .thenApply(img -> (AbstractResponse) new CreatePartitionsResponse(data));
            });
    }

    private CompletableFuture<AbstractResponse> deleteTopics(final DeleteTopicsRequest request)
    {
        final short version = request.version();
        return controller.<DeleteTopicsResponse>send(new DeleteTopicsRequest.Builder(request.data()))
            .thenCompose(response ->
            {
                final DeleteTopicsResponseData data = response.data();
                final List<Uuid> deleted = new ArrayList<>();
                for (final DeleteTopicsResponseData.DeletableTopicResult r : data.responses())
                {
                    if (r.errorCode() == Errors.NONE.code() && r.topicId() != null)
                    {
                        deleted.add(r.topicId());
                    }
                    if (version < 6)
                    {
                        r.setTopicId(Uuid.ZERO_UUID);
                    }
                }
                return awaitImage(img -> deleted.stream().allMatch(id -> img.topic(id).isEmpty()),
                    waitMs(request.data().timeoutMs()))
                    .thenApply(img -> (AbstractResponse) new DeleteTopicsResponse(data));
            });
    }

    private CompletableFuture<AbstractResponse> incrementalAlterConfigs(final IncrementalAlterConfigsRequest request)
    {
        final IncrementalAlterConfigsRequestData requestData = request.data();
        return controller.<IncrementalAlterConfigsResponse>send(new IncrementalAlterConfigsRequest.Builder(
            requestData))
            .thenCompose(response ->
            {
                final IncrementalAlterConfigsResponseData data = response.data();
                final List<Predicate<MetadataImage>> expectations = new ArrayList<>();
                if (!requestData.validateOnly())
                {
                    for (final IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse r : data.responses())
                    {
                        if (r.errorCode() != Errors.NONE.code() || r.resourceType() != ConfigResource.Type.TOPIC.id())
                        {
                            continue;
                        }
                        final IncrementalAlterConfigsRequestData.AlterConfigsResource resource =
                            requestData.resources().find(r.resourceType(), r.resourceName());
                        if (resource != null)
                        {
                            expectations.add(expectation(r.resourceName(), resource));
                        }
                    }
                }
                return awaitImage(img -> expectations.stream().allMatch(p -> p.test(img)),
                    MAX_APPLY_WAIT_MS)
                    .thenApply(img -> (AbstractResponse) new IncrementalAlterConfigsResponse(data));
            });
    }

    /**
     * The legacy AlterConfigs, which replaces a resource's whole set of dynamic configs: served as the
     * IncrementalAlterConfigs that makes the same change (SET every config given, DELETE every other override of
     * the topic, except {@code mirror.name}, which only mirror operations write), so both APIs validate alike.
     */
    private CompletableFuture<AbstractResponse> alterConfigs(final AlterConfigsRequest request)
    {
        final MetadataImage image = metadata.image();
        final IncrementalAlterConfigsRequestData incremental = new IncrementalAlterConfigsRequestData()
            .setValidateOnly(request.data().validateOnly());
        for (final AlterConfigsRequestData.AlterConfigsResource resource : request.data().resources())
        {
            final IncrementalAlterConfigsRequestData.AlterConfigsResource replaced =
                new IncrementalAlterConfigsRequestData.AlterConfigsResource().setResourceType(resource.resourceType())
                    .setResourceName(resource.resourceName());
            final Set<String> given = new LinkedHashSet<>();
            for (final AlterConfigsRequestData.AlterableConfig config : resource.configs())
            {
                given.add(config.name());
                replaced.configs().add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName(config.name())
                    .setValue(config.value()).setConfigOperation(AlterConfigOp.OpType.SET.id()));
            }
            if (resource.resourceType() == ConfigResource.Type.TOPIC.id())
            {
                image.topic(resource.resourceName()).ifPresent(topic -> topic.config().keySet().stream()
                    .filter(key -> !given.contains(key) && !MirrorDefinition.MIRROR_NAME_CONFIG.equals(key))
                    .forEach(key -> replaced.configs().add(new IncrementalAlterConfigsRequestData.AlterableConfig()
                        .setName(key).setConfigOperation(AlterConfigOp.OpType.DELETE.id()))));
            }
            incremental.resources().add(replaced);
        }
        return incrementalAlterConfigs(new IncrementalAlterConfigsRequest.Builder(incremental)
            .build(ApiKeys.INCREMENTAL_ALTER_CONFIGS.latestVersion()))
            .thenApply(response ->
            {
                final AlterConfigsResponseData data = new AlterConfigsResponseData();
                for (final IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse r :
                    ((IncrementalAlterConfigsResponse) response).data().responses())
                {
                    data.responses().add(new AlterConfigsResponseData.AlterConfigsResourceResponse()
                        .setErrorCode(r.errorCode()).setErrorMessage(r.errorMessage())
                        .setResourceType(r.resourceType()).setResourceName(r.resourceName()));
                }
                return new AlterConfigsResponse(data);
            });
    }

    /** What this broker's image shows once a successful alter is applied (SET and DELETE; lists are not checked). */
    private static Predicate<MetadataImage> expectation(final String topic,
        final IncrementalAlterConfigsRequestData.AlterConfigsResource resource)
    {
        final Map<String, String> set = new TreeMap<>();
        final Set<String> deleted = new LinkedHashSet<>();
        for (final IncrementalAlterConfigsRequestData.AlterableConfig op : resource.configs())
        {
            if (op.configOperation() == 0)
            {
                set.put(op.name(), op.value());
                deleted.remove(op.name());
            }
            else if (op.configOperation() == 1)
            {
                deleted.add(op.name());
                set.remove(op.name());
            }
        }
        return img ->
        {
            final Map<String, String> config = img.topicConfig(topic);
            for (final Map.Entry<String, String> e : set.entrySet())
            {
                if (!Objects.equals(config.get(e.getKey()), e.getValue()))
                {
                    return false;
                }
            }
            for (final String key : deleted)
            {
                if (config.containsKey(key))
                {
                    return false;
                }
            }
            return true;
        };
    }

    private static long waitMs(final int requestTimeoutMs)
    {
        return requestTimeoutMs <= 0 ? MAX_APPLY_WAIT_MS : Math.min(requestTimeoutMs, MAX_APPLY_WAIT_MS);
    }

    /** The first image satisfying {@code condition}, or the current image once {@code timeoutMs} has passed. */
    private CompletableFuture<MetadataImage> awaitImage(final Predicate<MetadataImage> condition, final long timeoutMs)
    {
        final CompletableFuture<MetadataImage> waiting = metadata.await(condition);
        return waiting.completeOnTimeout(null, timeoutMs, TimeUnit.MILLISECONDS)
            .thenApply(img -> img == null ? metadata.image() : img);
    }
}
