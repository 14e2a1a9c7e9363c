package io.syncmirror.broker.network;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's Kafka-wire socket server: binds one or more listeners, frames and parses requests with
 * kafka-clients' own message classes, answers ApiVersions and unsupported versions itself, and hands every
 * other request to a {@link RequestHandler}: one for all listeners, or one of its own for a listener that serves
 * other APIs (a controller listener serves the controller's RPCs only, as Kafka's does). Thread-safe:
 * {@link #start} and {@link #close} are serialized; {@link #boundPort} may be called from any thread after
 * {@link #start}.
 *
 * <p>Threads: one acceptor event loop ({@code syncmirror-net-accept-*}) for all listeners and
 * {@link SocketServerConfig#networkThreads()} I/O event loops ({@code syncmirror-net-io-*}), all daemon
 * threads, all stopped by {@link #close}. A connection lives on one I/O loop for its lifetime: its
 * parsing, the handler call and its response writes happen there, so a connection's state needs no lock, and
 * the handler sees one connection's requests on one thread in arrival order (fetch sessions and the LEO
 * cells a follower's connection reports can rely on that). Handler futures may complete anywhere; the answer
 * hops to the connection's loop once (Netty's MPSC task queue).
 *
 * <p>Transport: Netty NIO, so that it runs wherever a JDK does; TCP_NODELAY is on, because a sync ack is
 * latency-bound and small responses must not wait for Nagle. A TLS listener ({@link ListenerSecurity}) puts Netty's
 * {@code SslHandler} over the JDK engine Kafka's {@code SslFactory} builds in front of the framing, and sends a
 * Fetch response's records through buffers ({@link SendChunks}) instead of {@code transferTo}.
 */
public final class KafkaSocketServer implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(KafkaSocketServer.class);
    private static final long SHUTDOWN_TIMEOUT_MS = 5_000;

    private final List<Listener> listeners;
    private final RequestHandler handler;
    private final SocketServerConfig config;
    private final ApiVersionsResponder apiVersions;
    /** Listeners with a handler of their own, and the ApiVersions answer built from it. */
    private final Map<String, RequestHandler> listenerHandlers;
    private final Map<String, ApiVersionsResponder> listenerApiVersions = new HashMap<>();
    private final AtomicLong nextConnectionId = new AtomicLong();
    private final AuthenticationMetrics authentications;
    private final Map<String, InetSocketAddress> boundAddresses = new LinkedHashMap<>();
    private final List<Channel> serverChannels = new ArrayList<>();
    private EventLoopGroup acceptGroup;
    private EventLoopGroup ioGroup;
    private boolean started;
    private boolean closed;

    public KafkaSocketServer(final List<Listener> listeners, final RequestHandler handler, final SocketServerConfig config)
    {
        this(listeners, handler, config, ApiVersionsFeatures.NONE);
    }

    public KafkaSocketServer(
        final List<Listener> listeners,
        final RequestHandler handler,
        final SocketServerConfig config,
        final ApiVersionsFeatures features)
    {
        this(listeners, handler, Map.of(), config, features, AuthenticationMetrics.unreported());
    }

    /** As below, with authentication counts nobody exports. */
    public KafkaSocketServer(
        final List<Listener> listeners,
        final RequestHandler handler,
        final Map<String, RequestHandler> listenerHandlers,
        final SocketServerConfig config,
        final ApiVersionsFeatures features)
    {
        this(listeners, handler, listenerHandlers, config, features, AuthenticationMetrics.unreported());
    }

    /**
     * @param listenerHandlers listeners (by name) whose requests go to a handler of their own instead of
     *                         {@code handler}; their ApiVersions answers list what that handler serves
     * @param authentications  where each connection's login or refusal is counted; closed with this server
     */
    public KafkaSocketServer(
        final List<Listener> listeners,
        final RequestHandler handler,
        final Map<String, RequestHandler> listenerHandlers,
        final SocketServerConfig config,
        final ApiVersionsFeatures features,
        final AuthenticationMetrics authentications)
    {
        this.authentications = Objects.requireNonNull(authentications, "authentications");
        Objects.requireNonNull(listeners, "listeners");
        if (listeners.isEmpty())
        {
            throw new IllegalArgumentException("at least one listener is needed");
        }
        final Set<String> names = new HashSet<>();
        for (final Listener listener : listeners)
        {
            if (!names.add(listener.name()))
            {
                throw new IllegalArgumentException("duplicate listener name " + listener.name());
            }
        }
        this.listeners = List.copyOf(listeners);
        this.handler = Objects.requireNonNull(handler, "handler");
        this.config = Objects.requireNonNull(config, "config");
        this.apiVersions = new ApiVersionsResponder(handler, Objects.requireNonNull(features, "features"));
        this.listenerHandlers = Map.copyOf(listenerHandlers);
        this.listenerHandlers.forEach((name, own) ->
        {
            if (!names.contains(name))
            {
                throw new IllegalArgumentException("a handler for listener " + name + ", which is not bound");
            }
            listenerApiVersions.put(name, new ApiVersionsResponder(own, features));
        });
    }

    /**
     * Binds every listener and starts accepting. On a bind failure everything bound so far is closed and the
     * failure is thrown.
     *
     * @return the bound address of each listener, by name, in listener order
     */
    public synchronized Map<String, InetSocketAddress> start()
    {
        if (started || closed)
        {
            throw new IllegalStateException(closed ? "closed" : "already started");
        }
        started = true;
        final int ioThreads = config.networkThreads() == 0 ?
            Runtime.getRuntime().availableProcessors() : config.networkThreads();
        acceptGroup = new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("syncmirror-net-accept", true), NioIoHandler.newFactory());
        ioGroup = new MultiThreadIoEventLoopGroup(
            ioThreads, new DefaultThreadFactory("syncmirror-net-io", true), NioIoHandler.newFactory());
        try
        {
            for (final Listener listener : listeners)
            {
                final Channel channel = bind(listener);
                serverChannels.add(channel);
                final InetSocketAddress bound = (InetSocketAddress)channel.localAddress();
                boundAddresses.put(listener.name(), bound);
                LOG.info("Listener {} bound to {}", listener.name(), bound);
            }
        }
        catch (final RuntimeException e)
        {
            close();
            throw e;
        }
        return Collections.unmodifiableMap(new LinkedHashMap<>(boundAddresses));
    }

    /** The port {@code listenerName} is bound to (the ephemeral one when configured as 0). */
    public synchronized int boundPort(final String listenerName)
    {
        final InetSocketAddress address = boundAddresses.get(listenerName);
        if (address == null)
        {
            throw new IllegalArgumentException("listener " + listenerName + " is not bound");
        }
        return address.getPort();
    }

    /**
     * Authentications that failed on this server's listeners since it started (Kafka's failed-authentication-total):
     * TLS handshakes with peers that do not trust it, that it does not trust, or that sent something else (a
     * plaintext request) instead of a handshake; SASL exchanges refused (a wrong password, a mechanism not enabled)
     * and requests sent on a SASL listener without logging in.
     */
    public long failedAuthentications()
    {
        return authentications.failedTotal();
    }

    /** The authentication counts of each listener (Kafka's socket-server-metrics). */
    public AuthenticationMetrics authentications()
    {
        return authentications;
    }

    /** The bound address of each listener, by name; empty before {@link #start}. */
    public synchronized Map<String, InetSocketAddress> boundAddresses()
    {
        return Collections.unmodifiableMap(new LinkedHashMap<>(boundAddresses));
    }

    /**
     * Stops accepting, closes every connection and waits for the event loops to end. Handler futures that
     * complete afterwards are dropped. Idempotent.
     */
    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (final Channel channel : serverChannels)
        {
            channel.close().awaitUninterruptibly(SHUTDOWN_TIMEOUT_MS);
        }
        serverChannels.clear();
        shutdown(acceptGroup);
        shutdown(ioGroup);
        listeners.forEach(listener -> listener.security().close());
        authentications.close();
        boundAddresses.clear();
    }

    private Channel bind(final Listener listener)
    {
        final String name = listener.name();
        // Made now, so a listener nobody reached yet shows its zeros to an operator's JMX tool.
        final AuthenticationMetrics.Listener counts = authentications.listener(name);
        final ServerBootstrap bootstrap = new ServerBootstrap()
            .group(acceptGroup, ioGroup)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.SO_KEEPALIVE, true)
            .childHandler(new ChannelInitializer<SocketChannel>()
            {
                @Override
                protected void initChannel(final SocketChannel channel)
                {
                    final KafkaConnection connection = new KafkaConnection(
                        listenerHandlers.getOrDefault(name, handler),
                        listenerApiVersions.getOrDefault(name, apiVersions), nextConnectionId.incrementAndGet(),
                        listener.security(), config.maxInFlightRequestsPerConnection(), counts);
                    final SslHandler tls = listener.security().newSslHandler(channel);
                    if (tls != null)
                    {
                        // Outbound, a response's chunks pass through the TLS handler on their way to the socket.
                        channel.pipeline().addLast("tls", tls).addLast("chunks", new ChunkedWriteHandler());
                    }
                    channel.pipeline()
                        .addLast("frames", new KafkaFrameDecoder(config.maxRequestBytes(), connection))
                        .addLast("requests", connection);
                }
            });
        final InetSocketAddress address = listener.host().isEmpty() ?
            new InetSocketAddress(listener.port()) : new InetSocketAddress(listener.host(), listener.port());
        final ChannelFuture bound = bootstrap.bind(address).awaitUninterruptibly();
        if (!bound.isSuccess())
        {
            throw new IllegalStateException("cannot bind listener " + name + " to " + address, bound.cause());
        }
        return bound.channel();
    }

    private static void shutdown(final EventLoopGroup group)
    {
        if (group != null)
        {
            group.shutdownGracefully(0, SHUTDOWN_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .awaitUninterruptibly(SHUTDOWN_TIMEOUT_MS * 2);
        }
    }
}
