// A part of a page that fails to draw (a record holding something no page expected) shows its
// fallback in its place, and the rest of the page stays: without a boundary, one throw in a
// render unmounts the whole dashboard.
import { Component, type ComponentChildren } from 'preact';

interface Props {
  fallback: (error: unknown) => ComponentChildren;
  children: ComponentChildren;
}

export class Boundary extends Component<Props, { failed: boolean; error: unknown }> {
  state = { failed: false, error: undefined as unknown };

  componentDidCatch(error: unknown) {
    this.setState({ failed: true, error });
  }

  render() {
    return this.state.failed ? this.props.fallback(this.state.error) : this.props.children;
  }
}

/** The text of what a part threw, for its fallback. */
export const failureText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A part of a page, `what` named in its place when it fails to draw. */
export function Guarded({ what, children }: { what: string; children: ComponentChildren }) {
  return (
    <Boundary
      fallback={(error) => (
        <p class="error" role="alert">
          {what} could not be shown: {failureText(error)}
        </p>
      )}
    >
      {children}
    </Boundary>
  );
}
