import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

/** A vega-lite spec rendered headless to SVG with vega: no browser, no canvas. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
