package io.syncmirror.broker.network;

import java.nio.ByteBuffer;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * Splits a connection's bytes into Kafka request frames (a 4-byte big-endian size, then that many bytes) and
 * passes each frame on as a heap {@link ByteBuffer} of its own. Not thread-safe: one instance per connection,
 * used on its event loop.
 *
 * <p>Each frame gets its own buffer (one copy out of Netty's cumulation) because parsed requests keep
 * references into it: a Produce request's records are a view of the frame, and the log may hold on to them
 * after the request is answered, so the frame cannot be a pooled buffer recycled by the transport.
 *
 * <p>A negative size or one above {@code socket.request.max.bytes} (before a SASL listener's authentication,
 * {@code sasl.server.max.receive.size}) is a broken or hostile peer: the connection is closed with one warning
 * and every later byte on it is dropped, before any of the frame is buffered.
 */
final class KafkaFrameDecoder extends ByteToMessageDecoder
{
    static final int SIZE_PREFIX_BYTES = 4;

    private final int maxRequestBytes;
    private final KafkaConnection connection;
    private boolean discarding;

    KafkaFrameDecoder(final int maxRequestBytes, final KafkaConnection connection)
    {
        this.maxRequestBytes = maxRequestBytes;
        this.connection = connection;
    }

    @Override
    protected void decode(final ChannelHandlerContext ctx, final ByteBuf in, final List<Object> out)
    {
        if (discarding)
        {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < SIZE_PREFIX_BYTES)
        {
            return;
        }
        final int sizeBytes = in.getInt(in.readerIndex());
        final int maxBytes = connection.maxFrameBytes(maxRequestBytes);
        if (sizeBytes < 0 || sizeBytes > maxBytes)
        {
            discarding = true;
            in.skipBytes(in.readableBytes());
            connection.closeOnBadInput(ctx, "request size " + sizeBytes + " outside [0, " + maxBytes + "]");
            return;
        }
        if (in.readableBytes() < SIZE_PREFIX_BYTES + sizeBytes)
        {
            return;
        }
        in.skipBytes(SIZE_PREFIX_BYTES);
        final ByteBuffer frame = ByteBuffer.allocate(sizeBytes);
        in.readBytes(frame);
        frame.flip();
        out.add(frame);
    }
}
