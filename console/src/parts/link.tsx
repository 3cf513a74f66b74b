// A link inside the console: a real href (open in a new tab, copy), followed in place on a plain click; `current`
// marks the page being shown (aria-current, which the nav's style follows).
import type { ComponentChildren } from 'preact';
import { href, navigate } from '../router.js';

export function Link(props: {
  to: string;
  query?: URLSearchParams;
  class?: string;
  /** The page being shown: announced as such (aria-current) and marked by the stylesheet. */
  current?: boolean;
  children: ComponentChildren;
}) {
  const target = href(props.to, props.query);
  return (
    <a
      href={target}
      class={props.class}
      aria-current={props.current === true ? 'page' : undefined}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(props.to, props.query);
      }}
    >
      {props.children}
    </a>
  );
}
