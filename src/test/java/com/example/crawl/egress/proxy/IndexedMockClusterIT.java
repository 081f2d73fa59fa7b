package com.example.crawl.egress.proxy;

/** Every case of {@link MockClusterIT} against {@link MockCluster#startIndexed}: the index changes no answer. */
class IndexedMockClusterIT extends MockClusterIT {

    @Override
    MockCluster cluster() {
        return MockCluster.startIndexed();
    }
}
