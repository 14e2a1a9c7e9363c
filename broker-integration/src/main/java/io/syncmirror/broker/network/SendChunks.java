package io.syncmirror.broker.network;

import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.stream.ChunkedInput;
import io.netty.handler.stream.ChunkedWriteHandler;
import org.apache.kafka.common.network.Send;

/**
 * A Kafka {@link Send} (a Fetch response whose records may still be in their log segment files) read a chunk at a
 * time into buffers, for a TLS connection: the encryption needs the bytes, so the zero-copy {@link SendFileRegion}
 * cannot pass through it. {@link ChunkedWriteHandler} asks for the next chunk only when the socket takes more, so
 * a large response holds one chunk of memory at a time, not its whole size. Not thread-safe: read by its
 * channel's event loop only.
 */
final class SendChunks implements ChunkedInput<ByteBuf>
{
    /** Four TLS records' worth: large enough to amortize the per-chunk cost, small enough to stay in cache. */
    static final int CHUNK_BYTES = 64 * 1024;

    private final Send send;
    private long progressBytes;

    SendChunks(final Send send)
    {
        this.send = send;
    }

    @Override
    public boolean isEndOfInput()
    {
        return send.completed();
    }

    @Override
    public void close()
    {
        // Records belong to the log (file segments or heap buffers); nothing here owns a resource to free.
    }

    @Deprecated
    @Override
    public ByteBuf readChunk(final ChannelHandlerContext ctx) throws Exception
    {
        return readChunk(ctx.alloc());
    }

    @Override
    public ByteBuf readChunk(final ByteBufAllocator allocator) throws Exception
    {
        if (send.completed())
        {
            return null;
        }
        final int capacity = (int)Math.min(CHUNK_BYTES, send.size() - progressBytes);
        final ByteBuf chunk = allocator.ioBuffer(capacity, capacity);
        try
        {
            final SendFileRegion.Target target = new SendFileRegion.Target(new ChunkChannel(chunk));
            while (!send.completed() && chunk.isWritable())
            {
                if (send.writeTo(target) == 0)
                {
                    break;
                }
            }
            progressBytes += chunk.readableBytes();
            return chunk;
        }
        catch (final Exception | Error e)
        {
            chunk.release();
            throw e;
        }
    }

    @Override
    public long length()
    {
        return send.size();
    }

    @Override
    public long progress()
    {
        return progressBytes;
    }

    /** A chunk buffer as a byte channel that takes what fits and no more, as a full socket would. */
    private static final class ChunkChannel implements WritableByteChannel
    {
        private final ByteBuf chunk;

        ChunkChannel(final ByteBuf chunk)
        {
            this.chunk = chunk;
        }

        @Override
        public int write(final ByteBuffer src)
        {
            final int n = Math.min(src.remaining(), chunk.writableBytes());
            final int limit = src.limit();
            src.limit(src.position() + n);
            chunk.writeBytes(src);
            src.limit(limit);
            return n;
        }

        @Override
        public boolean isOpen()
        {
            return true;
        }

        @Override
        public void close()
        {
        }
    }
}
