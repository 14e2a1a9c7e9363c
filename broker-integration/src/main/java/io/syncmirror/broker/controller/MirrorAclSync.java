package io.syncmirror.broker.controller;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.SecurityDisabledException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.metadata.authorizer.StandardAcl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.broker.metadata.MirrorAclSyncConfig;
import io.syncmirror.broker.metadata.MirrorDefinition;

/**
 * A mirror's ACL sync, one step of each metadata sync cycle ({@link MirrorMetadataManager}): reads the source's
 * TOPIC and GROUP ACLs and makes the ACLs the mirror keeps on this cluster match them ({@link MirrorAclControl}).
 *
 * <p>What is copied ({@link #plan}):
 * <ul>
 * <li>Topic ACLs that reach a topic of the mirror: a literal ACL on it, a prefixed ACL whose prefix it starts
 * with, or the wildcard {@code *}; each copied as a literal ACL on that topic, so a source-wide grant does not
 * reach this cluster's own topics. DENY entries and grants that only read (READ, DESCRIBE, DESCRIBE_CONFIGS) are
 * put in force. Every other grant (WRITE, ALTER, DELETE, ...) is held back while the topic is read-only and put
 * in force when it fails over; a grant of ALL is held whole and, meanwhile, READ and DESCRIBE_CONFIGS stand in
 * for its reading part.</li>
 * <li>Group ACLs whose pattern name the mirror's {@code acl.sync.groups.include}/{@code exclude} select, as
 * they are (consumer group offsets are synced for every group).</li>
 * </ul>
 * Cluster, transactional-id, user and delegation-token ACLs are not copied: they describe the source cluster.
 *
 * <p>Thread-safety: called from the manager's one thread.
 */
final class MirrorAclSync
{
    private static final Logger LOG = LoggerFactory.getLogger(MirrorAclSync.class);
    private static final Set<AclOperation> READ_ONLY_GRANTS = Set.of(AclOperation.READ, AclOperation.DESCRIBE,
        AclOperation.DESCRIBE_CONFIGS);
    private static final AclBindingFilter TOPIC_ACLS = new AclBindingFilter(
        new ResourcePatternFilter(ResourceType.TOPIC, null, PatternType.ANY), AccessControlEntryFilter.ANY);
    private static final AclBindingFilter GROUP_ACLS = new AclBindingFilter(
        new ResourcePatternFilter(ResourceType.GROUP, null, PatternType.ANY), AccessControlEntryFilter.ANY);

    private final MirrorController controller;

    MirrorAclSync(final MirrorController controller)
    {
        this.controller = controller;
    }

    /** The ACLs a mirror keeps here: in force now, and held back until failover. */
    record Plan(Set<StandardAcl> inForce, Set<StandardAcl> held)
    {
    }

    /**
     * One sync of {@code mirror}'s ACLs when its ACL sync is enabled; a failure is added to {@code errors} (the
     * mirror's last error) and retried at the next cycle.
     */
    void sync(final MirrorDefinition mirror, final SourceClusterClient source, final Collection<String> topics,
        final List<String> errors)
    {
        final MirrorAclSyncConfig config = mirror.aclSync();
        if (!config.enabled())
        {
            return;
        }
        final List<AclBinding> sourceAcls = new ArrayList<>();
        try
        {
            sourceAcls.addAll(source.describeAcls(TOPIC_ACLS));
            sourceAcls.addAll(source.describeAcls(GROUP_ACLS));
        }
        catch (final SecurityDisabledException e)
        {
            errors.add("ACLs are not synced: the source cluster has no authorizer (" + e.getMessage() + ")");
            return;
        }
        catch (final ClusterAuthorizationException e)
        {
            errors.add("ACLs are not synced: the mirror's principal may not describe the source's ACLs (it needs "
                + "DESCRIBE on the source's cluster): " + e.getMessage());
            return;
        }
        final Plan plan = plan(sourceAcls, Set.copyOf(topics), config);
        final MirrorOpResult result = MirrorMetadataManager.await(controller.syncMirrorAcls(mirror.name(),
            plan.inForce(), plan.held()));
        if (!result.isOk())
        {
            errors.add("ACL sync failed: " + result.messageOrDefault());
        }
        else if (result.message() != null)
        {
            LOG.info("Mirror '{}': ACLs synced from the source ({})", mirror.name(), result.messageOrDefault());
        }
    }

    /** What the source's ACLs make the mirror keep here, for the mirror's {@code topics}. */
    static Plan plan(final Collection<AclBinding> sourceAcls, final Set<String> topics,
        final MirrorAclSyncConfig config)
    {
        final Set<StandardAcl> inForce = new LinkedHashSet<>();
        final Set<StandardAcl> held = new LinkedHashSet<>();
        for (final AclBinding binding : sourceAcls)
        {
            final ResourcePattern pattern = binding.pattern();
            if (pattern.resourceType() == ResourceType.GROUP)
            {
                if (config.copiesGroupPattern(pattern.name()) && copyable(binding))
                {
                    inForce.add(StandardAcl.fromAclBinding(binding));
                }
                continue;
            }
            if (pattern.resourceType() != ResourceType.TOPIC || !copyable(binding))
            {
                continue;
            }
            for (final String topic : topics)
            {
                if (reaches(pattern, topic))
                {
                    planTopicAcl(topic, binding.entry(), inForce, held);
                }
            }
        }
        return new Plan(inForce, held);
    }

    private static void planTopicAcl(final String topic, final AccessControlEntry entry,
        final Set<StandardAcl> inForce, final Set<StandardAcl> held)
    {
        final ResourcePattern literal = new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL);
        final StandardAcl acl = StandardAcl.fromAclBinding(new AclBinding(literal, entry));
        if (entry.permissionType() == AclPermissionType.DENY || READ_ONLY_GRANTS.contains(entry.operation()))
        {
            inForce.add(acl);
            return;
        }
        held.add(acl);
        if (entry.operation() == AclOperation.ALL)
        {
            for (final AclOperation reading : List.of(AclOperation.READ, AclOperation.DESCRIBE_CONFIGS))
            {
                inForce.add(StandardAcl.fromAclBinding(new AclBinding(literal, new AccessControlEntry(
                    entry.principal(), entry.host(), reading, AclPermissionType.ALLOW))));
            }
        }
    }

    /** Whether the source's pattern covers {@code topic}. */
    private static boolean reaches(final ResourcePattern pattern, final String topic)
    {
        return switch (pattern.patternType())
        {
            case LITERAL -> pattern.name().equals(topic) || pattern.name().equals(ResourcePattern.WILDCARD_RESOURCE);
            case PREFIXED -> topic.startsWith(pattern.name());
            default -> false;
        };
    }

    /** An ACL this cluster accepts (a source of another version could send what Kafka's validation refuses). */
    private static boolean copyable(final AclBinding binding)
    {
        try
        {
            AclControl.validate(binding);
            return true;
        }
        catch (final RuntimeException e)
        {
            return false;
        }
    }
}
