package io.syncmirror.broker.metadata;

import java.util.Collection;
import java.util.Optional;

import org.apache.kafka.common.Uuid;

/**
 * A broker's image of cluster metadata, built by applying the controller's metadata log in order.
 *
 * <p>Thread-safety: readable from any thread; each getter sees one applied image (images are replaced
 * whole, never mutated in place).
 */
public interface MetadataView
{
    /** Offset of the last metadata record applied to this image; -1 before the first. */
    long appliedOffset();

    /** The highest metadata log offset this broker has heard exists (the controller's HW as last seen). */
    long latestKnownOffset();

    Optional<TopicMetadata> topic(String name);

    Optional<TopicMetadata> topic(Uuid id);

    Collection<TopicMetadata> topics();

    /** Registered, unfenced brokers. */
    Collection<BrokerEndpoint> liveBrokers();

    Optional<BrokerEndpoint> broker(int id);

    /** The controller's node id, as the metadata names it. */
    int controllerId();
}
