/**
 * The icons of the server and of each tool, served from our own origin (public/icons: an SVG
 * and a 64-px PNG each, the PNGs made from the SVGs by scripts/make-icons.ts). Their URLs are
 * absolute, built from APP_URL. MCP lists icons from revision 2025-11-25 on, so only the
 * 2026-07-28 era's listings carry them (build-server.ts).
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/index#icons
 */
import type { Icon } from "@modelcontextprotocol/server";

/** The server's icon: the app's own mark (app/icon.svg). */
export const SERVER_ICON = "ledgerlink";

/** A tool's icon, by the tool's name. */
export function toolIcon(toolName: string): string {
  return `tools/${toolName}`;
}

/** Where an icon's files are served, relative to the origin (and to public/). */
export function iconPaths(icon: string): { svg: string; png: string } {
  return { svg: `/icons/${icon}.svg`, png: `/icons/${icon}.png` };
}

/** The PNG's width and height in pixels. */
export const PNG_SIZE = 64;

/** An icon as MCP lists it: the SVG for any size, the PNG at 64 px. */
export function iconsOf(icon: string, appUrl: string): Icon[] {
  const { svg, png } = iconPaths(icon);
  return [
    { src: `${appUrl}${svg}`, mimeType: "image/svg+xml", sizes: ["any"] },
    { src: `${appUrl}${png}`, mimeType: "image/png", sizes: [`${PNG_SIZE}x${PNG_SIZE}`] },
  ];
}
