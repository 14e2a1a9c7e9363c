package io.syncmirror.broker.mirror;

import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import javax.management.InstanceNotFoundException;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.mirror.sync.RejectReason;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The synchronous-mirroring MBeans of {@link MirrorMetrics}, from a fake sync source. */
@Timeout(30)
class MirrorMetricsSyncTest
{
    private static final int BROKER_ID = 9_101;
    private static final String BROKER = Integer.toString(BROKER_ID);
    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);
    private static final TopicPartition AUDIT_0 = new TopicPartition("audit", 0);

    private final List<MirrorCoordinator.SyncStatus> syncStatuses = new ArrayList<>();
    private final Map<RejectReason, Long> rejected = new EnumMap<>(RejectReason.class);
    private final AtomicInteger registeredTopics = new AtomicInteger();
    private final AtomicLong nowMs = new AtomicLong(1_000L);
    private MBeanServer server;
    private MirrorMetrics metrics;

    @BeforeEach
    void setUp()
    {
        server = MBeanServerFactory.newMBeanServer();
        metrics = new MirrorMetrics(BROKER_ID, List::of, () -> 0, new MirrorMetrics.SyncSource()
        {
            @Override
            public Collection<MirrorCoordinator.SyncStatus> syncStatuses()
            {
                return List.copyOf(syncStatuses);
            }

            @Override
            public long rejected(final RejectReason reason)
            {
                return rejected.getOrDefault(reason, 0L);
            }

            @Override
            public int registeredSyncTopics()
            {
                return registeredTopics.get();
            }
        }, server, nowMs::get, 0L);
    }

    @AfterEach
    void tearDown()
    {
        metrics.close();
    }

    private static MirrorCoordinator.SyncStatus sync(final TopicPartition tp, final boolean reporting,
        final long failingForMs, final long invalid, final long propagating)
    {
        return new MirrorCoordinator.SyncStatus("m", tp, Uuid.ZERO_UUID, reporting, failingForMs, invalid,
            propagating);
    }

    private Object value(final ObjectName name) throws Exception
    {
        return server.getAttribute(name, MirrorMetrics.VALUE_ATTRIBUTE);
    }

    @Test
    @DisplayName("SU-12 SyncPartitionFetchFailures{reason} counts each partition's failed reports and "
        + "SyncPartitionsFailing counts the topic's partitions failing now; partitions that never reported get none")
    void shouldCountFailuresPerPartitionAndFailingPartitionsPerTopic() throws Exception
    {
        syncStatuses.add(sync(ORDERS_0, true, 2_000L, 3, 1));
        syncStatuses.add(sync(ORDERS_1, true, -1L, 0, 0));
        syncStatuses.add(sync(AUDIT_0, false, -1L, 0, 0));
        metrics.refresh();
        assertEquals(3L, value(MirrorMetrics.syncPartitionFetchFailuresName(BROKER, "m", ORDERS_0, "INVALID")));
        assertEquals(1L, value(MirrorMetrics.syncPartitionFetchFailuresName(BROKER, "m", ORDERS_0, "PROPAGATING")));
        assertEquals(0L, value(MirrorMetrics.syncPartitionFetchFailuresName(BROKER, "m", ORDERS_1, "INVALID")));
        assertEquals(1, value(MirrorMetrics.syncPartitionsFailingName(BROKER, "m", "orders")));
        assertThrows(InstanceNotFoundException.class, () ->
            value(MirrorMetrics.syncPartitionFetchFailuresName(BROKER, "m", AUDIT_0, "INVALID")));
        assertThrows(InstanceNotFoundException.class, () ->
            value(MirrorMetrics.syncPartitionsFailingName(BROKER, "m", "audit")));

        syncStatuses.set(1, sync(ORDERS_1, true, 10L, 1, 0));
        assertEquals(2, value(MirrorMetrics.syncPartitionsFailingName(BROKER, "m", "orders")));

        syncStatuses.clear();
        metrics.refresh();
        assertThrows(InstanceNotFoundException.class, () ->
            value(MirrorMetrics.syncPartitionFetchFailuresName(BROKER, "m", ORDERS_0, "INVALID")));
        assertThrows(InstanceNotFoundException.class, () ->
            value(MirrorMetrics.syncPartitionsFailingName(BROKER, "m", "orders")));
    }

    @Test
    @DisplayName("SU-10 SU-12 SyncRegistrationRejected has one counter per reason and SyncRegisteredTopics shows the "
        + "source's registered topics")
    void shouldExposeRejectionsAndRegisteredTopics() throws Exception
    {
        rejected.put(RejectReason.VERSION_MISMATCH, 4L);
        registeredTopics.set(2);
        assertEquals(4L, value(MirrorMetrics.syncRegistrationRejectedName(BROKER,
            RejectReason.VERSION_MISMATCH)));
        assertEquals(0L, value(MirrorMetrics.syncRegistrationRejectedName(BROKER,
            RejectReason.ALL_PARTITIONS_FAILING)));
        assertEquals(0L, value(MirrorMetrics.syncRegistrationRejectedName(BROKER,
            RejectReason.RELEASED_FRESH_PROMOTION_REQUIRED)));
        assertEquals(2, value(MirrorMetrics.syncRegisteredTopicsName(BROKER)));
        metrics.close();
        assertThrows(InstanceNotFoundException.class, () -> value(MirrorMetrics.syncRegisteredTopicsName(BROKER)));
    }
}
