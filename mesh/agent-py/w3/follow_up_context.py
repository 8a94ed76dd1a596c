"""A follow-up message that names its task but not its context is answered in the task's context.

a2a-sdk 1.3.0 generates a fresh contextId for such a message and then refuses the turn ("Context in
event doesn't match TaskManager"), although a client may leave the contextId out when it names the
task. This builder fills the missing contextId from the stored task before the SDK builds the request
context.
"""

from a2a.server.agent_execution import RequestContext
from a2a.server.agent_execution.simple_request_context_builder import SimpleRequestContextBuilder
from a2a.server.context import ServerCallContext
from a2a.server.tasks import TaskStore
from a2a.types.a2a_pb2 import SendMessageRequest, Task


class TaskContextRequestContextBuilder(SimpleRequestContextBuilder):
    def __init__(self, task_store: TaskStore) -> None:
        super().__init__(task_store=task_store)
        self._store = task_store

    async def build(
        self,
        context: ServerCallContext,
        params: SendMessageRequest | None = None,
        task_id: str | None = None,
        context_id: str | None = None,
        task: Task | None = None,
    ) -> RequestContext:
        if params is not None and params.message.task_id and not params.message.context_id:
            stored = await self._store.get(params.message.task_id, context)
            if stored is not None:
                params.message.context_id = stored.context_id
                context_id = stored.context_id
        return await super().build(context=context, params=params, task_id=task_id, context_id=context_id, task=task)
