package io.syncmirror.broker.mirror;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import javax.management.timer.Timer;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.syncmirror.protocol.MirrorPartitionState;

@Timeout(30)
class MirrorMetricsTest
{
    private static final int BROKER_ID = 9_001;
    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);
    private static final TopicPartition PAYMENTS_0 = new TopicPartition("payments", 0);

    private final List<MirrorCoordinator.Status> statuses = new ArrayList<>();
    private final AtomicInteger statusReads = new AtomicInteger();
    private final AtomicInteger deadThreads = new AtomicInteger();
    private final AtomicLong nowMs = new AtomicLong(1_000L);
    private MBeanServer server;
    private MirrorMetrics metrics;

    @BeforeEach
    void setUp()
    {
        server = MBeanServerFactory.newMBeanServer();
        metrics = metrics(BROKER_ID, 0L);
    }

    @AfterEach
    void tearDown()
    {
        metrics.close();
    }

    private MirrorMetrics metrics(final int brokerId, final long snapshotMaxAgeMs)
    {
        return new MirrorMetrics(brokerId, () ->
        {
            statusReads.incrementAndGet();
            return List.copyOf(statuses);
        }, deadThreads::get, server, nowMs::get, snapshotMaxAgeMs);
    }

    private static MirrorCoordinator.Status status(final String mirror, final TopicPartition tp,
        final MirrorPartitionState state, final long lag)
    {
        return new MirrorCoordinator.Status(mirror, tp, Uuid.randomUuid(), state, lag < 0 ? -1L : 100L,
            lag < 0 ? 0L : 100L - lag, lag, Errors.NONE, null);
    }

    private Object value(final ObjectName name) throws Exception
    {
        return server.getAttribute(name, MirrorMetrics.VALUE_ATTRIBUTE);
    }

    private Set<ObjectName> registered() throws Exception
    {
        return server.queryNames(new ObjectName("kafka.server:*"), null);
    }

    private String tag()
    {
        return metrics.brokerTag();
    }

    @Test
    void shouldRegisterStateCountsAndDeadThreadCountAtOnceAndNothingElse() throws Exception
    {
        assertEquals(String.valueOf(BROKER_ID), tag());
        final Set<ObjectName> names = registered();
        assertEquals(MirrorPartitionState.values().length + 1, names.size(), names.toString());
        for (final MirrorPartitionState state : MirrorPartitionState.values())
        {
            final ObjectName name = MirrorMetrics.partitionsInStateName(tag(), state);
            assertEquals("kafka.server:type=MirrorMetrics,name=PartitionsInState,state=" + state.name() + ",broker=" +
                BROKER_ID, name.toString());
            assertEquals(0, value(name));
        }
        assertEquals("kafka.server:type=MirrorFetcherManager,name=DeadThreadCount,broker=" + BROKER_ID,
            MirrorMetrics.deadThreadCountName(tag()).toString());
        assertEquals(0, value(MirrorMetrics.deadThreadCountName(tag())));
        assertEquals(MirrorPartitionState.values().length + 1, statusReads.get(), "a snapshot per read at max age 0");
    }

    @Test
    void shouldRegisterPartitionAndMirrorMBeansOnReadAndUnregisterThemWhenPartitionsGo() throws Exception
    {
        statuses.add(status("m1", ORDERS_0, MirrorPartitionState.MIRRORING, 5));
        statuses.add(status("m1", ORDERS_1, MirrorPartitionState.MIRRORING, 0));
        statuses.add(status("m2", PAYMENTS_0, MirrorPartitionState.PREPARING, -1));
        final ObjectName lag = MirrorMetrics.partitionLagName(tag(), "m1", ORDERS_0);
        assertFalse(server.isRegistered(lag), "not before a read");

        assertEquals(2, value(MirrorMetrics.partitionsInStateName(tag(), MirrorPartitionState.MIRRORING)));
        assertEquals(MirrorPartitionState.values().length + 1 + 2 + 3 * 2, registered().size());
        assertEquals("kafka.server:type=MirrorMetrics,name=PartitionLag,mirror=m1,topic=orders,partition=0,broker=" +
            BROKER_ID, lag.toString());
        assertEquals(5L, value(lag));
        assertEquals(0L, value(MirrorMetrics.partitionLagName(tag(), "m1", ORDERS_1)));
        assertEquals(-1L, value(MirrorMetrics.partitionLagName(tag(), "m2", PAYMENTS_0)));
        assertEquals(5L, value(MirrorMetrics.maxLagName(tag(), "m1")));
        assertEquals(-1L, value(MirrorMetrics.maxLagName(tag(), "m2")), "no lag known yet");

        statuses.remove(0);
        statuses.remove(1);
        assertThrows(AttributeNotFoundException.class, () -> value(lag), "read of a partition gone");
        assertFalse(server.isRegistered(lag));
        assertFalse(server.isRegistered(MirrorMetrics.partitionStateName(tag(), "m1", ORDERS_0)));
        assertFalse(server.isRegistered(MirrorMetrics.maxLagName(tag(), "m2")));
        assertTrue(server.isRegistered(MirrorMetrics.maxLagName(tag(), "m1")));
        assertEquals(0L, value(MirrorMetrics.maxLagName(tag(), "m1")));

        metrics.close();
        assertEquals(Set.of(), registered());
        metrics.refresh();
        assertEquals(Set.of(), registered(), "nothing registered again after close");
    }

    @Test
    void shouldTakeTheMaxLagOverMirroredPartitionsOnly() throws Exception
    {
        statuses.add(status("m1", ORDERS_0, MirrorPartitionState.MIRRORING, 7));
        statuses.add(status("m1", ORDERS_1, MirrorPartitionState.FAILED, 11));
        statuses.add(status("m1", PAYMENTS_0, MirrorPartitionState.STOPPED, 40));
        metrics.refresh();
        assertEquals(11L, value(MirrorMetrics.maxLagName(tag(), "m1")));
        assertEquals(-1L, value(MirrorMetrics.partitionLagName(tag(), "m1", PAYMENTS_0)),
            "a failed-over partition has no lag");

        statuses.set(1, status("m1", ORDERS_1, MirrorPartitionState.STOPPING, 11));
        assertEquals(7L, value(MirrorMetrics.maxLagName(tag(), "m1")));
    }

    @Test
    void shouldCountPartitionsPerStateAndShowEachPartitionsStateAsByteAndName() throws Exception
    {
        final MirrorPartitionState[] states = MirrorPartitionState.values();
        for (int i = 0; i < states.length; i++)
        {
            for (int p = 0; p <= i; p++)
            {
                statuses.add(status("m" + i, new TopicPartition("t" + i, p), states[i], 0));
            }
        }
        for (int i = 0; i < states.length; i++)
        {
            assertEquals(i + 1, value(MirrorMetrics.partitionsInStateName(tag(), states[i])), states[i].name());
        }
        final ObjectName failed = MirrorMetrics.partitionStateName(tag(), "m5", new TopicPartition("t5", 3));
        assertEquals(MirrorPartitionState.FAILED.id(), value(failed));
        assertEquals("FAILED", server.getAttribute(failed, MirrorMetrics.STATE_NAME_ATTRIBUTE));
        final AttributeList both = server.getAttributes(failed,
            new String[] {MirrorMetrics.VALUE_ATTRIBUTE, MirrorMetrics.STATE_NAME_ATTRIBUTE, "NoSuch"});
        assertEquals(List.of(new Attribute("Value", (byte)5), new Attribute("StateName", "FAILED")), both.asList());
        assertThrows(AttributeNotFoundException.class, () -> server.getAttribute(failed, "NoSuch"));
    }

    @Test
    void shouldReuseASnapshotWithinItsMaxAge() throws Exception
    {
        metrics.close();
        metrics = metrics(BROKER_ID, 1_000L);
        statuses.add(status("m1", ORDERS_0, MirrorPartitionState.MIRRORING, 3));
        final ObjectName mirroring = MirrorMetrics.partitionsInStateName(tag(), MirrorPartitionState.MIRRORING);
        assertEquals(1, value(mirroring));
        final int reads = statusReads.get();

        statuses.add(status("m1", ORDERS_1, MirrorPartitionState.MIRRORING, 3));
        nowMs.addAndGet(999);
        assertEquals(1, value(mirroring));
        assertEquals(3L, value(MirrorMetrics.partitionLagName(tag(), "m1", ORDERS_0)));
        assertEquals(reads, statusReads.get());

        nowMs.addAndGet(1);
        assertEquals(2, value(mirroring));
        assertEquals(reads + 1, statusReads.get());

        nowMs.addAndGet(-5_000);
        assertEquals(2, value(mirroring));
        assertEquals(reads + 2, statusReads.get(), "a clock that went back takes a new snapshot");
    }

    @Test
    void shouldReadDeadThreadCountOnEveryRead() throws Exception
    {
        final ObjectName dead = MirrorMetrics.deadThreadCountName(tag());
        deadThreads.set(2);
        assertEquals(2, value(dead));
        deadThreads.set(0);
        assertEquals(0, value(dead));
    }

    @Test
    void shouldQuoteNameValuesJmxCannotTake() throws Exception
    {
        final String odd = "east,west=1:*";
        statuses.add(status(odd, ORDERS_0, MirrorPartitionState.MIRRORING, 4));
        metrics.refresh();
        final ObjectName maxLag = MirrorMetrics.maxLagName(tag(), odd);
        assertEquals(ObjectName.quote(odd), maxLag.getKeyProperty("mirror"));
        assertEquals(odd, ObjectName.unquote(maxLag.getKeyProperty("mirror")));
        assertEquals(4L, value(maxLag));
        assertEquals("orders", MirrorMetrics.partitionLagName(tag(), odd, ORDERS_0).getKeyProperty("topic"),
            "plain values stay unquoted");
    }

    @Test
    void shouldGiveASecondBrokerWithTheSameIdInThisJvmItsOwnNames() throws Exception
    {
        final MirrorMetrics second = metrics(BROKER_ID, 0L);
        try (MirrorMetrics third = metrics(BROKER_ID, 0L))
        {
            assertEquals(BROKER_ID + "-2", second.brokerTag());
            assertEquals(BROKER_ID + "-3", third.brokerTag());
            assertEquals(3 * (MirrorPartitionState.values().length + 1), registered().size());
            second.close();
            assertEquals(2 * (MirrorPartitionState.values().length + 1), registered().size());
        }
        finally
        {
            second.close();
        }
        try (MirrorMetrics again = metrics(BROKER_ID, 0L))
        {
            assertEquals(BROKER_ID + "-2", again.brokerTag(), "a closed instance's tag is free again");
        }
    }

    @Test
    void shouldNotReplaceAnMBeanSomeoneElseRegistered() throws Exception
    {
        metrics.close();
        final ObjectName dead = MirrorMetrics.deadThreadCountName(String.valueOf(BROKER_ID));
        server.registerMBean(new Timer(), dead);
        metrics = metrics(BROKER_ID, 0L);
        assertEquals(MirrorPartitionState.values().length + 1, registered().size());
        metrics.close();
        assertTrue(server.isRegistered(dead), "close leaves what it did not register");
    }

    @Test
    void shouldRefuseANegativeMaxAge()
    {
        assertThrows(IllegalArgumentException.class, () -> metrics(BROKER_ID + 1, -1L));
    }
}
