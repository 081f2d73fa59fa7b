"""Fetches the URLs given on the command line with Scrapy through the egress middleware and
prints each page: DISCOVERY=... DISCOVERY_TOKEN=... python3 scrapy_crawl.py URL..."""
import os
import sys

import scrapy
from scrapy.crawler import CrawlerProcess

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


class Pages(scrapy.Spider):
    name = "pages"

    def start_requests(self):
        for url in self.urls:
            yield scrapy.Request(url)

    def parse(self, response):
        sys.stdout.write(response.text)


if __name__ == "__main__":
    process = CrawlerProcess(settings={
        "DOWNLOADER_MIDDLEWARES": {"scrapy_egress.EgressProxyMiddleware": 700},
        "EGRESS_DISCOVERY": os.environ["DISCOVERY"],
        "EGRESS_TOKEN": os.environ["DISCOVERY_TOKEN"],
        "EGRESS_BLOCK_MARKER": os.environ.get("EGRESS_BLOCK_MARKER"),
        "RETRY_ENABLED": False,  # the middleware retries, with a new lease each time
        "CONCURRENT_REQUESTS": 1,
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
    })
    process.crawl(Pages, urls=sys.argv[1:])
    process.start()
