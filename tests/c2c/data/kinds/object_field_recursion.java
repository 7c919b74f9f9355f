import java.util.*;

// recursion through another object (a tree node's field), 3,000 deep on sorted input
public class Main {
    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt();
        Node root = new Node(sc.nextInt());
        for (int i = 1; i < n; i++) root.insert(sc.nextInt());
        System.out.println(root.height());
    }
}
class Node {
    int val; Node left, right;
    Node(int v) { val = v; }
    void insert(int v) {
        if (v < val) { if (left == null) left = new Node(v); else left.insert(v); }
        else { if (right == null) right = new Node(v); else right.insert(v); }
    }
    int height() {
        int l = left == null ? 0 : left.height();
        int r = right == null ? 0 : right.height();
        return 1 + Math.max(l, r);
    }
}
