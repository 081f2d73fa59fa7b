/**
 * IP address literals read by their shape alone: what the egress echo answers, what a status
 * says a proxy's egress is, and the network subnet diversity keeps apart. Nothing here ever asks
 * DNS, since every such text comes from outside (an echo, or a status anyone allowed to edit it
 * could fill with a host name).
 *
 * <p>Imports nothing of this project ({@code LayeringTest}).
 */
package com.example.crawl.egress.address;
