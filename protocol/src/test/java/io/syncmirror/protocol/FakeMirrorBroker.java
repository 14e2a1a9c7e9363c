package io.syncmirror.protocol;

import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A broker stand-in on 127.0.0.1 that decodes mirror requests with the protocol classes and answers as its
 * handler decides, for the client tests here and the command tests in {@code tools}, which get it from this
 * module's test-jar. Thread-safe; its threads are daemons and {@link #close()} stops them.
 *
 * <p>Besides the mirror RPCs it answers Kafka's ApiVersions with the response given to {@link #answerApiVersions},
 * as a source cluster answers a compatibility probe; until one is given it closes the connection of an ApiVersions
 * request, like a peer that does not speak Kafka. Any other non-mirror request also closes the connection.
 */
public final class FakeMirrorBroker implements AutoCloseable
{
    /** Decides the answer to one request: write it with {@link #reply}, or misbehave on purpose. */
    @FunctionalInterface
    public interface Handler
    {
        void handle(MirrorRequestHeader header, ApiMessage request, Socket socket, DataOutputStream out)
            throws IOException;
    }

    private final ServerSocket server;
    private final Handler handler;
    private final List<MirrorRequestHeader> headers = new CopyOnWriteArrayList<>();
    private final List<ApiMessage> requests = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger apiVersionsRequests = new AtomicInteger();
    private volatile ApiVersionsResponseData apiVersionsResponse;

    public FakeMirrorBroker(final Handler handler) throws IOException
    {
        this.handler = handler;
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final Thread acceptor = new Thread(this::acceptLoop, "fake-mirror-broker-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Answers every request with a response of its RPC at every default, with the same correlation id. */
    public static Handler answeringDefaults()
    {
        return (header, request, socket, out) -> reply(out, header, header.apiKey().newResponseData());
    }

    public static void reply(final DataOutputStream out, final MirrorRequestHeader header, final ApiMessage response)
        throws IOException
    {
        writeFrame(out, MirrorMessages.serializeResponse(header.toResponseHeader(), response, header.apiVersion()));
    }

    public static void writeFrame(final DataOutputStream out, final ByteBuffer frame) throws IOException
    {
        out.writeInt(frame.remaining());
        out.write(frame.array(), frame.arrayOffset() + frame.position(), frame.remaining());
        out.flush();
    }

    /** Answers every later ApiVersions request with {@code response}, at the version asked for; returns this. */
    public FakeMirrorBroker answerApiVersions(final ApiVersionsResponseData response)
    {
        this.apiVersionsResponse = response;
        return this;
    }

    /** How many ApiVersions requests arrived, answered or not; they are not among {@link #requests()}. */
    public int apiVersionsRequests()
    {
        return apiVersionsRequests.get();
    }

    public int port()
    {
        return server.getLocalPort();
    }

    public List<MirrorRequestHeader> headers()
    {
        return headers;
    }

    public List<ApiMessage> requests()
    {
        return requests;
    }

    public int connections()
    {
        return connections.get();
    }

    private void acceptLoop()
    {
        while (!server.isClosed())
        {
            try
            {
                final Socket socket = server.accept();
                sockets.add(socket);
                connections.incrementAndGet();
                final Thread serve = new Thread(() -> serve(socket), "fake-mirror-broker-conn");
                serve.setDaemon(true);
                serve.start();
            }
            catch (final IOException e)
            {
                return;
            }
        }
    }

    private void serve(final Socket socket)
    {
        try (socket)
        {
            final DataInputStream in = new DataInputStream(socket.getInputStream());
            final DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            while (!socket.isClosed())
            {
                final int size = in.readInt();
                final byte[] frame = new byte[size];
                in.readFully(frame);
                final ByteBuffer buffer = ByteBuffer.wrap(frame);
                if (MirrorRequestHeader.peekApiKey(buffer) == ApiKeys.API_VERSIONS.id)
                {
                    apiVersionsRequests.incrementAndGet();
                    final ApiVersionsResponseData response = apiVersionsResponse;
                    if (response == null)
                    {
                        return;
                    }
                    answerApiVersions(RequestHeader.parse(buffer), response, out);
                    continue;
                }
                final MirrorRequestHeader header = MirrorRequestHeader.parse(buffer);
                final ApiMessage request = MirrorMessages.parseRequest(header, buffer);
                headers.add(header);
                requests.add(request);
                handler.handle(header, request, socket, out);
            }
        }
        catch (final IOException e)
        {
            // The client went away or the handler closed the socket: this connection is done.
        }
    }

    /** Writes an ApiVersions response: response header version 0 (the correlation id alone), then the body. */
    private static void answerApiVersions(final RequestHeader header, final ApiVersionsResponseData response,
        final DataOutputStream out) throws IOException
    {
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final short version = header.apiVersion();
        final ByteBuffer frame = ByteBuffer.allocate(4 + response.size(cache, version));
        frame.putInt(header.correlationId());
        response.write(new ByteBufferAccessor(frame), cache, version);
        writeFrame(out, frame.flip());
    }

    @Override
    public void close() throws IOException
    {
        server.close();
        for (final Socket socket : sockets)
        {
            socket.close();
        }
    }
}
