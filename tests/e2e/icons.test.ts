/**
 * The MCP icons (lib/mcp/icons.ts) as a client's directory fetches them: from our own origin,
 * served by the production build out of public/icons, each with its image type and the bytes of
 * its file. The MCP listings that name them: tests/integration/mcp-icons.test.ts.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { iconPaths, SERVER_ICON, toolIcon } from "@/lib/mcp/icons";
import { allTools } from "@/lib/mcp/tools";
import { e2eServer } from "./helpers";

const server = e2eServer();
const PUBLIC = path.resolve(import.meta.dirname, "../../public");

describe.skipIf(server.skipReason)("MCP icons", () => {
  const icons = [SERVER_ICON, ...allTools.map((tool) => toolIcon(tool.name))];
  for (const icon of icons) {
    it(`${icon}: the SVG and the PNG`, async () => {
      const { svg, png } = iconPaths(icon);
      for (const [file, type] of [
        [svg, "image/svg+xml"],
        [png, "image/png"],
      ] as const) {
        const answer = await fetch(`${server.baseUrl}${file}`);
        expect(answer.status, file).toBe(200);
        expect(answer.headers.get("content-type"), file).toContain(type);
        expect(Buffer.from(await answer.arrayBuffer()), file).toEqual(readFileSync(path.join(PUBLIC, file)));
      }
    });
  }
});
