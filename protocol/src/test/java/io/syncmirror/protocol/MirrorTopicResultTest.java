package io.syncmirror.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class MirrorTopicResultTest
{
    @Test
    void shouldReadTheResultsOfEachPerTopicResponseInOrder()
    {
        final List<MirrorTopicResult> expected = List.of(new MirrorTopicResult("a", (short)0, null),
            new MirrorTopicResult("b", (short)3, "unknown topic"));
        assertEquals(expected, MirrorTopicResult.of(new AddTopicsToMirrorResponseData().setTopics(List.of(
            new AddTopicsToMirrorResponseData.TopicResult().setTopicName("a"),
            new AddTopicsToMirrorResponseData.TopicResult().setTopicName("b").setErrorCode((short)3)
                .setErrorMessage("unknown topic")))));
        assertEquals(expected, MirrorTopicResult.of(new RemoveTopicsFromMirrorResponseData().setTopics(List.of(
            new RemoveTopicsFromMirrorResponseData.TopicResult().setTopicName("a"),
            new RemoveTopicsFromMirrorResponseData.TopicResult().setTopicName("b").setErrorCode((short)3)
                .setErrorMessage("unknown topic")))));
        assertEquals(expected, MirrorTopicResult.of(new RegisterMirrorSyncTopicResponseData().setTopics(List.of(
            new RegisterMirrorSyncTopicResponseData.TopicResult().setTopicName("a"),
            new RegisterMirrorSyncTopicResponseData.TopicResult().setTopicName("b").setErrorCode((short)3)
                .setErrorMessage("unknown topic")))));
        assertEquals(expected, MirrorTopicResult.of(new AlterMirrorTopicTypeResponseData().setTopics(List.of(
            new AlterMirrorTopicTypeResponseData.TopicResult().setTopicName("a"),
            new AlterMirrorTopicTypeResponseData.TopicResult().setTopicName("b").setErrorCode((short)3)
                .setErrorMessage("unknown topic")))));
    }

    @Test
    void shouldRefuseAResponseWithoutPerTopicResults()
    {
        assertThrows(IllegalArgumentException.class,
            () -> MirrorTopicResult.of(new DescribeClusterMirrorsResponseData()));
    }
}
