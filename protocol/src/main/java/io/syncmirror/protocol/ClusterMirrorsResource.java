package io.syncmirror.protocol;

import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The spec's CLUSTER_MIRRORS resource, on which operators are granted ALTER (mirror management, {@code
 * --release-sync}) and DESCRIBE (describing mirrors). Kafka 4.4's {@link ResourceType} has no CLUSTER_MIRRORS, so
 * neither StandardAuthorizer nor Kafka's AclCommand could hold one; it is kept as an ACL on the CLUSTER resource type
 * under its own name, {@value #NAME}, beside the cluster's own {@code kafka-cluster}. StandardAuthorizer then
 * matches it with Kafka's rules (DENY before ALLOW, hosts, super users), Kafka's ACL APIs store and list it, and
 * {@code bin/syncmirror-mirror-acls.sh} grants it. Stateless.
 */
public final class ClusterMirrorsResource
{
    /** The resource's name under the CLUSTER resource type. */
    public static final String NAME = "kafka-cluster-mirrors";
    /** The resource as Kafka's ACL APIs name it. */
    public static final ResourcePattern PATTERN = new ResourcePattern(ResourceType.CLUSTER, NAME, PatternType.LITERAL);

    private ClusterMirrorsResource()
    {
    }
}
