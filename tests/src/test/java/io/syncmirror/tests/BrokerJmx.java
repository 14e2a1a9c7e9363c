package io.syncmirror.tests;

import java.io.IOException;
import java.lang.management.MemoryUsage;

import javax.management.JMException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;

/**
 * The JMX of a broker process on this machine, reached through the JDK's attach API (the local management agent
 * the JVM starts on request), so that a test reads the broker's own metrics without opening a JMX port. Not
 * thread-safe; one test thread.
 */
final class BrokerJmx implements AutoCloseable
{
    private final int nodeId;
    private final JMXConnector connector;
    private final MBeanServerConnection server;

    private BrokerJmx(final int nodeId, final JMXConnector connector) throws IOException
    {
        this.nodeId = nodeId;
        this.connector = connector;
        this.server = connector.getMBeanServerConnection();
    }

    /** Attaches to broker {@code node} of {@code cluster}. */
    static BrokerJmx attach(final ProcessCluster cluster, final int node) throws IOException
    {
        final VirtualMachine vm;
        try
        {
            vm = VirtualMachine.attach(Long.toString(cluster.pid(node)));
        }
        catch (final AttachNotSupportedException e)
        {
            throw new IOException("cannot attach to " + cluster.name() + " broker " + node, e);
        }
        try
        {
            final String address = vm.startLocalManagementAgent();
            return new BrokerJmx(node, JMXConnectorFactory.connect(new JMXServiceURL(address)));
        }
        finally
        {
            vm.detach();
        }
    }

    /** One attribute of {@code kafka.server:type=MirrorMetrics,name=<metric>,broker=<node>}. */
    Object mirrorMetric(final String metric, final String attribute) throws IOException, JMException
    {
        return server.getAttribute(new ObjectName("kafka.server:type=MirrorMetrics,name=" + metric + ",broker=" +
            nodeId), attribute);
    }

    /**
     * Kafka's {@code socket-server-metrics} attribute {@code attribute} (e.g. {@code failed-authentication-total})
     * of listener {@code listener}.
     */
    long socketServerTotal(final String listener, final String attribute) throws IOException, JMException
    {
        return (long)(double)(Double)server.getAttribute(new ObjectName("kafka.server:type=socket-server-metrics,"
            + "listener=" + listener + ",broker=" + nodeId), attribute);
    }

    /** Runs a full GC in the broker and returns its heap in use after it, in bytes. */
    long heapUsedAfterGc() throws IOException, JMException
    {
        final ObjectName memory = new ObjectName("java.lang:type=Memory");
        server.invoke(memory, "gc", null, null);
        return MemoryUsage.from((CompositeData)server.getAttribute(memory, "HeapMemoryUsage")).getUsed();
    }

    @Override
    public void close() throws IOException
    {
        connector.close();
    }
}
