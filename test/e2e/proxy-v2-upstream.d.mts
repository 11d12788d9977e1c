// Types of proxy-v2-upstream.mjs for the tests that mount its factory.
import type { McpServer } from '@modelcontextprotocol/server';

export declare function forecastServer(name?: string, version?: string): McpServer;
