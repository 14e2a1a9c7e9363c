package io.syncmirror.broker.network;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Meter;
import org.apache.kafka.common.utils.Time;

/**
 * Kafka's authentication metrics of a socket server, per listener: {@code successful-authentication-total},
 * {@code failed-authentication-total} and their {@code -rate}s in the group {@code socket-server-metrics}, kept in
 * Kafka's own {@link Metrics}. With JMX on they appear as Kafka shows them,
 * {@code kafka.server:type=socket-server-metrics,listener=<name>,broker=<id>}; the {@code broker} tag stands where
 * Kafka has {@code networkProcessor} (Netty's event loops are not Kafka's processors), and tells apart the brokers
 * of an in-process cluster.
 *
 * <p>Recorded once per connection at most (its login, or its refusal), never per request; thread-safe (Kafka's
 * sensors lock), so any event loop records.
 */
public final class AuthenticationMetrics implements AutoCloseable
{
    static final String GROUP = "socket-server-metrics";
    private static final String JMX_PREFIX = "kafka.server";

    private final Metrics metrics;
    private final Map<String, String> tags;
    private final Map<String, Listener> listeners = new ConcurrentHashMap<>();

    private AuthenticationMetrics(final Metrics metrics, final Map<String, String> tags)
    {
        this.metrics = metrics;
        this.tags = tags;
    }

    /** Metrics nobody exports: for a socket server outside a broker (tests, tools). */
    public static AuthenticationMetrics unreported()
    {
        return new AuthenticationMetrics(new Metrics(Time.SYSTEM), Map.of());
    }

    /** Metrics exported to the platform MBean server under broker {@code brokerId}'s tag. */
    public static AuthenticationMetrics reportedToJmx(final int brokerId)
    {
        final JmxReporter jmx = new JmxReporter();
        final Metrics metrics = new Metrics(new MetricConfig(), List.of(jmx), Time.SYSTEM,
            new KafkaMetricsContext(JMX_PREFIX));
        return new AuthenticationMetrics(metrics, Map.of("broker", Integer.toString(brokerId)));
    }

    /** The sensors of listener {@code name}, made on first use. */
    Listener listener(final String name)
    {
        return listeners.computeIfAbsent(name, Listener::new);
    }

    /** Failed authentications on every listener since the start. */
    public long failedTotal()
    {
        long total = 0;
        for (final Listener listener : listeners.values())
        {
            total += listener.failedTotal();
        }
        return total;
    }

    /** Failed authentications on listener {@code name} since the start; 0 for a listener nobody reached. */
    public long failedTotal(final String name)
    {
        final Listener listener = listeners.get(name);
        return listener == null ? 0 : listener.failedTotal();
    }

    /** Successful authentications on listener {@code name} since the start. */
    public long successfulTotal(final String name)
    {
        final Listener listener = listeners.get(name);
        return listener == null ? 0 : listener.successfulTotal();
    }

    @Override
    public void close()
    {
        metrics.close();
    }

    /** One listener's two meters. */
    final class Listener
    {
        private final Sensor succeeded;
        private final Sensor failed;
        private final MetricName failedTotal;
        private final MetricName successfulTotal;

        private Listener(final String name)
        {
            final Map<String, String> listenerTags = new LinkedHashMap<>();
            listenerTags.put("listener", name);
            listenerTags.putAll(tags);
            successfulTotal = metrics.metricName("successful-authentication-total", GROUP,
                "Connections that authenticated (a TLS handshake, a SASL login)", listenerTags);
            failedTotal = metrics.metricName("failed-authentication-total", GROUP,
                "Connections refused for their authentication", listenerTags);
            succeeded = metrics.sensor("successful-authentication:" + name);
            succeeded.add(new Meter(metrics.metricName("successful-authentication-rate", GROUP,
                "Connections that authenticated per second", listenerTags), successfulTotal));
            failed = metrics.sensor("failed-authentication:" + name);
            failed.add(new Meter(metrics.metricName("failed-authentication-rate", GROUP,
                "Connections refused for their authentication per second", listenerTags), failedTotal));
        }

        void succeeded()
        {
            succeeded.record();
        }

        void failed()
        {
            failed.record();
        }

        long failedTotal()
        {
            return total(failedTotal);
        }

        long successfulTotal()
        {
            return total(successfulTotal);
        }

        private long total(final MetricName name)
        {
            return (long)(double)(Double)metrics.metric(name).metricValue();
        }
    }
}
