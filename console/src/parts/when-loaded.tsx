// What a page (or a part of one) shows for each state of its load: the loading status, the API's problem, or the
// data.
import type { ComponentChildren } from 'preact';
import type { Loaded } from '../api.js';
import { Loading } from './loading.js';
import { ProblemBox } from './problem.js';

export function WhenLoaded<T>(props: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (props.loaded.state === 'loading') return <Loading />;
  if (props.loaded.state === 'failed') return <ProblemBox problem={props.loaded.problem} />;
  return <>{props.children(props.loaded.data)}</>;
}
