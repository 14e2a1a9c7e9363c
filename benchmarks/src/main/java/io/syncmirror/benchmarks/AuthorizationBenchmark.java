package io.syncmirror.benchmarks;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.metadata.authorizer.StandardAcl;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import io.syncmirror.broker.authorization.BrokerAuthorizer;
import io.syncmirror.broker.metadata.BrokerMetadataApplier;
import io.syncmirror.broker.metadata.MetadataListener;
import io.syncmirror.broker.metadata.MetadataRecord;
import io.syncmirror.broker.metadata.MetadataRecordCodec;
import io.syncmirror.broker.network.RequestContext;

/**
 * What authorizing one Produce topic costs a broker with an authorizer (the check {@code RequestAuthorization}
 * makes per topic of each request, on the event loop): Kafka's StandardAuthorizer as the broker hosts it, fed
 * {@code acls} ACLs of many principals through the metadata image, asked for WRITE on a topic by a super user (the
 * brokers' own case), by a principal allowed by a LITERAL ACL, by one allowed by a PREFIXED ACL, and by one with
 * no ACL (denied). Not a hot path without an authorizer (no check is made) and not in the default suite:
 * {@code benchmarks/run-micro.sh --include Authorization}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = { BenchmarkFlags.ADD_EXPORTS, "-Xmx1g",
    "-Dorg.slf4j.simpleLogger.log.kafka.authorizer.logger=warn" })
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@State(Scope.Thread)
public class AuthorizationBenchmark
{
    @Param({ "10", "10000" })
    public int acls;

    private BrokerAuthorizer authorizer;
    private RequestContext superUser;
    private RequestContext literal;
    private RequestContext prefixed;
    private RequestContext nobody;

    @Setup(Level.Trial)
    public void setUp()
    {
        authorizer = BrokerAuthorizer.create(Map.of("authorizer.class.name", BrokerAuthorizer.STANDARD_AUTHORIZER,
            "super.users", "User:broker"), "bench", 1);
        final BrokerMetadataApplier applier = new BrokerMetadataApplier(1, 0, MetadataListener.NONE);
        applier.addImageListener(authorizer);
        final List<MetadataRecord> records = new ArrayList<>();
        for (int i = 0; i < acls; i++)
        {
            // Many principals, each with its own topics: a lookup for one must not see the others.
            records.add(acl(i, "User:app-" + i, "topic-" + i, PatternType.LITERAL));
        }
        records.add(acl(acls, "User:writer", "orders", PatternType.LITERAL));
        records.add(acl(acls + 1, "User:team", "ord", PatternType.PREFIXED));
        applier.apply(MetadataRecordCodec.encodeBatch(0, 0, records), records.size());
        superUser = context("broker");
        literal = context("writer");
        prefixed = context("team");
        nobody = context("stranger");
        if (!authorizer.authorize(literal, AclOperation.WRITE, ResourceType.TOPIC, "orders") ||
            !authorizer.authorize(prefixed, AclOperation.WRITE, ResourceType.TOPIC, "orders") ||
            authorizer.authorize(nobody, AclOperation.WRITE, ResourceType.TOPIC, "orders", false))
        {
            throw new IllegalStateException("the ACLs do not decide as this benchmark assumes");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        authorizer.close();
    }

    private static MetadataRecord.Acl acl(final int id, final String principal, final String topic,
        final PatternType pattern)
    {
        return MetadataRecord.Acl.of(new Uuid(42, id + 1), new StandardAcl(ResourceType.TOPIC, topic, pattern,
            principal, "*", AclOperation.WRITE, AclPermissionType.ALLOW));
    }

    private static RequestContext context(final String user)
    {
        return new RequestContext(new RequestHeader(ApiKeys.PRODUCE, (short)11, "bench", 1),
            InetAddress.getLoopbackAddress(), 1, "EXTERNAL", Optional.empty(), new KafkaPrincipal("User", user),
            SecurityProtocol.SASL_SSL);
    }

    @Benchmark
    public boolean superUser()
    {
        return authorizer.authorize(superUser, AclOperation.WRITE, ResourceType.TOPIC, "orders");
    }

    @Benchmark
    public boolean literalAcl()
    {
        return authorizer.authorize(literal, AclOperation.WRITE, ResourceType.TOPIC, "orders");
    }

    @Benchmark
    public boolean prefixedAcl()
    {
        return authorizer.authorize(prefixed, AclOperation.WRITE, ResourceType.TOPIC, "orders");
    }

    @Benchmark
    public boolean deniedQuietly()
    {
        return authorizer.authorize(nobody, AclOperation.WRITE, ResourceType.TOPIC, "orders", false);
    }
}
