package io.syncmirror.broker.authorization;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.apache.kafka.common.ClusterResource;
import org.apache.kafka.common.Endpoint;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.AuthorizerNotReadyException;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.metadata.authorizer.StandardAcl;
import org.apache.kafka.metadata.authorizer.StandardAuthorizer;
import org.apache.kafka.server.authorizer.Action;
import org.apache.kafka.server.authorizer.AuthorizationResult;
import org.apache.kafka.server.authorizer.AuthorizerServerInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.broker.metadata.MetadataImage;
import io.syncmirror.broker.network.AuthorizableContext;
import io.syncmirror.broker.network.RequestContext;

/**
 * The broker's authorizer: Kafka's own {@link StandardAuthorizer} (kafka-metadata), configured from the broker's
 * {@code authorizer.class.name}, {@code super.users} and {@code allow.everyone.if.no.acl.found}, and fed the ACLs of
 * the cluster metadata as each image is applied (the role of Kafka's AclPublisher). It completes its initial load
 * once this broker has caught up with the metadata log; until then it denies everyone but super users.
 *
 * <p>Thread-safety: {@link #accept} runs on the metadata thread (an image listener, and once at registration);
 * {@link #authorize} from any request thread (StandardAuthorizer publishes its ACL data safely).
 */
public final class BrokerAuthorizer implements Consumer<MetadataImage>, AutoCloseable
{
    /** Kafka's key; empty for none. */
    public static final String AUTHORIZER_CLASS_NAME_CONFIG = "authorizer.class.name";
    /** The one authorizer this broker hosts: it reads ACLs from the cluster metadata, as this broker keeps them. */
    public static final String STANDARD_AUTHORIZER = StandardAuthorizer.class.getName();

    private static final Logger LOG = LoggerFactory.getLogger(BrokerAuthorizer.class);

    private final StandardAuthorizer authorizer;
    /** The authorizer's own metrics (its authorization counts), as Kafka hands a plugin its metrics. */
    private final Metrics metrics;
    private Map<Uuid, StandardAcl> loaded;
    private boolean initialLoadComplete;

    private BrokerAuthorizer(final StandardAuthorizer authorizer, final Metrics metrics)
    {
        this.authorizer = authorizer;
        this.metrics = metrics;
    }

    /**
     * The authorizer {@code authorizer.class.name} names, or null when it names none.
     *
     * @throws ConfigException it names a class other than Kafka's StandardAuthorizer
     */
    public static BrokerAuthorizer create(final Map<String, ?> brokerConfig, final String clusterId,
        final int brokerId)
    {
        final Object named = brokerConfig.get(AUTHORIZER_CLASS_NAME_CONFIG);
        final String className = named == null ? "" : named.toString().trim();
        if (className.isEmpty())
        {
            return null;
        }
        if (!className.equals(STANDARD_AUTHORIZER))
        {
            throw new ConfigException(AUTHORIZER_CLASS_NAME_CONFIG, className, "this broker hosts only "
                + STANDARD_AUTHORIZER + ", which keeps its ACLs in the cluster metadata");
        }
        final StandardAuthorizer authorizer = new StandardAuthorizer();
        final Metrics metrics = new Metrics();
        authorizer.configure(brokerConfig);
        // Kafka's broker hands every Monitorable plugin its metrics before use; StandardAuthorizer records into them.
        authorizer.withPluginMetrics(new PluginMetricsImpl(metrics, Map.of("config", AUTHORIZER_CLASS_NAME_CONFIG,
            "class", StandardAuthorizer.class.getSimpleName())));
        authorizer.start(new ServerInfo(new ClusterResource(clusterId), brokerId));
        return new BrokerAuthorizer(authorizer, metrics);
    }

    /** Loads the image's ACLs into the authorizer: all of them at first, then only what changed. */
    @Override
    public synchronized void accept(final MetadataImage image)
    {
        final Map<Uuid, StandardAcl> acls = image.acls();
        if (acls != loaded)
        {
            if (loaded == null)
            {
                authorizer.loadSnapshot(acls);
            }
            else
            {
                for (final Uuid id : loaded.keySet())
                {
                    if (!acls.containsKey(id))
                    {
                        authorizer.removeAcl(id);
                    }
                }
                acls.forEach((id, acl) ->
                {
                    if (!acl.equals(loaded.get(id)))
                    {
                        authorizer.addAcl(id, acl);
                    }
                });
            }
            loaded = acls;
        }
        if (!initialLoadComplete && image.caughtUp())
        {
            authorizer.completeInitialLoad();
            initialLoadComplete = true;
            LOG.info("Authorizer loaded {} ACLs from the cluster metadata", acls.size());
        }
    }

    /**
     * Whether {@code context}'s principal may do {@code operation} on the resource. Kafka's audit log
     * ({@code kafka.authorizer.logger}) records a Kafka request's denial; a cluster-mirroring RPC has no Kafka api
     * key for that log to name, so its caller logs its own.
     */
    public boolean authorize(final RequestContext context, final AclOperation operation, final ResourceType type,
        final String name)
    {
        return authorize(context, operation, type, name, true);
    }

    /**
     * The same; a denial is logged only when {@code logDenial} (false where a denied resource is only left out of
     * an answer, as Kafka's all-topics Metadata does).
     */
    public boolean authorize(final RequestContext context, final AclOperation operation, final ResourceType type,
        final String name, final boolean logDenial)
    {
        final boolean audited = context.header() != null;
        try
        {
            return authorizer.authorize(new AuthorizableContext(context), List.of(new Action(operation,
                new ResourcePattern(type, name, PatternType.LITERAL), 1, audited, audited && logDenial))).get(0) ==
                AuthorizationResult.ALLOWED;
        }
        catch (final AuthorizerNotReadyException e)
        {
            return false;
        }
    }

    /** Whether the principal may do {@code operation} on some resource of {@code type} (Kafka's by-type check). */
    public boolean authorizeAny(final RequestContext context, final AclOperation operation, final ResourceType type)
    {
        try
        {
            return authorizer.authorizeByResourceType(new AuthorizableContext(context), operation, type) ==
                AuthorizationResult.ALLOWED;
        }
        catch (final AuthorizerNotReadyException e)
        {
            return false;
        }
    }

    /** The ACLs matching {@code filter}. */
    public List<AclBinding> acls(final AclBindingFilter filter)
    {
        final List<AclBinding> out = new ArrayList<>();
        authorizer.acls(filter).forEach(out::add);
        return out;
    }

    @Override
    public void close()
    {
        try
        {
            authorizer.close();
        }
        catch (final IOException e)
        {
            LOG.warn("Closing the authorizer: {}", e.toString());
        }
        metrics.close();
    }

    /** What StandardAuthorizer asks of the broker at start: the cluster and the broker's id. */
    private record ServerInfo(ClusterResource clusterResource, int brokerId) implements AuthorizerServerInfo
    {
        @Override
        public Collection<Endpoint> endpoints()
        {
            return List.of();
        }

        @Override
        public Endpoint interBrokerEndpoint()
        {
            return null;
        }

        @Override
        public Collection<String> earlyStartListeners()
        {
            return List.of();
        }
    }
}
