// How an action ended: what the service said when it took it, or its problem.
import type { Action } from '../api.js';
import { ProblemBox } from './problem.js';

export function Outcome({ action }: { action: Action }) {
  return (
    <>
      {action.said === undefined ? null : (
        <p role="status" class="said">
          {action.said}
        </p>
      )}
      {action.problem === undefined ? null : <ProblemBox problem={action.problem} />}
    </>
  );
}
