package io.syncmirror.broker.authorization;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.SecurityDisabledException;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.CreateAclsRequest;
import org.apache.kafka.common.requests.CreateAclsResponse;
import org.apache.kafka.common.requests.DeleteAclsRequest;
import org.apache.kafka.common.requests.DeleteAclsResponse;
import org.apache.kafka.common.requests.DescribeAclsRequest;
import org.apache.kafka.common.requests.DescribeAclsResponse;
import org.apache.kafka.metadata.authorizer.StandardAcl;

import io.syncmirror.broker.metadata.BrokerMetadataApplier;
import io.syncmirror.broker.metadata.MetadataImage;
import io.syncmirror.broker.network.NodeClient;
import io.syncmirror.broker.network.RequestContext;
import io.syncmirror.broker.network.RequestHandler;

/**
 * CreateAcls, DeleteAcls and DescribeAcls as a Kafka broker serves them: without an authorizer each is answered
 * SECURITY_DISABLED; with one, changes go to the controller (which records them in the metadata log) and are
 * answered once this broker's image shows them, and DescribeAcls reads the authorizer's ACLs here. Whether the
 * caller may do it at all (ALTER or DESCRIBE on the cluster) is {@link RequestAuthorization}'s check.
 *
 * <p>Thread-safe: forwarded requests complete on the controller client's or the metadata thread.
 */
public final class AclApis implements RequestHandler
{
    /** How long an answer waits for this broker's image to show the change. */
    private static final long MAX_APPLY_WAIT_MS = 10_000;
    private static final String NO_AUTHORIZER = "No Authorizer is configured.";

    private final BrokerAuthorizer authorizer;
    private final BrokerMetadataApplier metadata;
    private final NodeClient controller;

    /** @param authorizer the broker's authorizer, or null when none is configured */
    public AclApis(final BrokerAuthorizer authorizer, final BrokerMetadataApplier metadata,
        final NodeClient controller)
    {
        this.authorizer = authorizer;
        this.metadata = metadata;
        this.controller = controller;
    }

    @Override
    public short maxVersion(final ApiKeys key)
    {
        return key == ApiKeys.CREATE_ACLS || key == ApiKeys.DELETE_ACLS || key == ApiKeys.DESCRIBE_ACLS ?
            key.latestVersion() : -1;
    }

    @Override
    public short minVersion(final ApiKeys key)
    {
        return key.oldestVersion();
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(final RequestContext context, final AbstractRequest request)
    {
        if (authorizer == null)
        {
            return CompletableFuture.completedFuture(request.getErrorResponse(0,
                new SecurityDisabledException(NO_AUTHORIZER)));
        }
        if (request instanceof DescribeAclsRequest describe)
        {
            return CompletableFuture.completedFuture(describe(describe));
        }
        if (request instanceof CreateAclsRequest create)
        {
            return create(create);
        }
        if (request instanceof DeleteAclsRequest delete)
        {
            return delete(delete);
        }
        return CompletableFuture.failedFuture(new InvalidRequestException("not an ACL API: " + request.apiKey()));
    }

    private AbstractResponse describe(final DescribeAclsRequest request)
    {
        final AclBindingFilter filter = request.filter();
        if (filter.isUnknown())
        {
            return request.getErrorResponse(0, new InvalidRequestException("The filter is invalid: " + filter));
        }
        return new DescribeAclsResponse(new DescribeAclsResponseData()
            .setResources(DescribeAclsResponse.aclsResources(authorizer.acls(filter))), request.version());
    }

    private CompletableFuture<AbstractResponse> create(final CreateAclsRequest request)
    {
        return controller.<CreateAclsResponse>send(new CreateAclsRequest.Builder(request.data()))
            .thenCompose(response ->
            {
                final List<StandardAcl> created = new ArrayList<>();
                for (int i = 0; i < response.results().size() && i < request.aclCreations().size(); i++)
                {
                    if (response.results().get(i).errorCode() == Errors.NONE.code())
                    {
                        created.add(StandardAcl.fromAclBinding(CreateAclsRequest.aclBinding(
                            request.aclCreations().get(i))));
                    }
                }
                return afterApplied(image -> image.acls().values().containsAll(created), response);
            });
    }

    private CompletableFuture<AbstractResponse> delete(final DeleteAclsRequest request)
    {
        return controller.<DeleteAclsResponse>send(new DeleteAclsRequest.Builder(request.data()))
            .thenCompose(response ->
            {
                final List<StandardAcl> deleted = new ArrayList<>();
                response.filterResults().forEach(result -> result.matchingAcls().forEach(matched ->
                {
                    if (matched.errorCode() == Errors.NONE.code())
                    {
                        final AclBinding binding = DeleteAclsResponse.aclBinding(matched);
                        deleted.add(StandardAcl.fromAclBinding(binding));
                    }
                }));
                return afterApplied(image -> noneOf(image.acls(), deleted), response);
            });
    }

    private static boolean noneOf(final Map<Uuid, StandardAcl> acls, final List<StandardAcl> deleted)
    {
        for (final StandardAcl acl : deleted)
        {
            if (acls.containsValue(acl))
            {
                return false;
            }
        }
        return true;
    }

    /** {@code response} once this broker's image satisfies {@code applied}, or after the wait bound. */
    private CompletableFuture<AbstractResponse> afterApplied(final Predicate<MetadataImage> applied,
        final AbstractResponse response)
    {
        return metadata.await(applied).orTimeout(MAX_APPLY_WAIT_MS, TimeUnit.MILLISECONDS)
            .handle((image, timedOut) -> response);
    }
}
