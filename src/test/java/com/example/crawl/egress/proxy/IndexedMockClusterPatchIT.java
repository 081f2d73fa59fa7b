package com.example.crawl.egress.proxy;

/** Every case of {@link MockClusterPatchIT} against {@link MockCluster#startIndexed}: the index changes no answer. */
class IndexedMockClusterPatchIT extends MockClusterPatchIT {

    @Override
    MockCluster cluster() {
        return MockCluster.startIndexed();
    }
}
