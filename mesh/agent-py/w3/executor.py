"""W3's agent logic: follows the message's script and answers in text/plain."""

import asyncio

from a2a.helpers import new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types.a2a_pb2 import Part, Role, Task, TaskState

from .script import parse_script, split_into_chunks


def _text_of(parts) -> str:
    for part in parts:
        if part.HasField("text"):
            return part.text
    return ""


def _text_part(text: str) -> Part:
    part = new_text_part(text)
    part.media_type = "text/plain"
    return part


def _original_question(task: Task) -> str:
    for message in task.history:
        if message.role == Role.ROLE_USER:
            return parse_script(_text_of(message.parts)).question
    return ""


class ScriptedExecutor(AgentExecutor):
    def __init__(self, worker: str = "W3") -> None:
        self.worker = worker

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        text = _text_of(message.parts) if message is not None else ""
        script = parse_script(text)
        task = context.current_task
        resuming = task is not None and task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        if task is None:
            task = new_task_from_user_message(message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.start_work()

        if not resuming and script.need_input:
            prompt = updater.new_agent_message([_text_part("Input required: reply to this task with the missing detail to continue.")])
            await updater.requires_input(prompt)
            return
        if script.delay_ms > 0:
            await asyncio.sleep(script.delay_ms / 1000)

        question = f"{_original_question(task)} / input: {script.question}" if resuming else script.question
        answer = f"{self.worker} answered: {question}"
        artifact_id = f"{task.id}-result"
        pieces = split_into_chunks(answer, script.chunks)
        if len(pieces) == 1:
            await updater.add_artifact([_text_part(answer)], artifact_id=artifact_id, name="result", append=False, last_chunk=True)
        else:
            for i, piece in enumerate(pieces):
                await updater.add_artifact([_text_part(piece)], artifact_id=artifact_id, name="result", append=i > 0, last_chunk=i == len(pieces) - 1)
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is None:
            return
        await TaskUpdater(event_queue, task.id, task.context_id).cancel()

